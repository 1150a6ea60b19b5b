"""The kinds of landed work and their handlers: the built-in ones, those installed packages add
through the `landwatch.kinds` entry point group, and `--kind KIND=module:Class` given by hand.

A kind is the work item's `kind`; its handler is an `ItemHandler` class named `module:Class`.
Nothing here is imported until the reviewer loads handlers: the hooks' path never pays for it.
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING, Any

from landwatch.errors import UserError

if TYPE_CHECKING:
    from pathlib import Path

    from landwatch.kinds.base import Clock, Failing, ItemHandler

BUILTIN = {
    "review": "landwatch.kinds.review:ReviewHandler",
    "push": "landwatch.kinds.push:PushHandler",
    "maintenance": "landwatch.kinds.maintenance:MaintenanceHandler",
    "project_hooks": "landwatch.kinds.project_hooks:ProjectHooksHandler",
    "share": "landwatch.kinds.share:ShareHandler",
}
# The built-in kinds that never say they are failing (ItemHandler.failing's None): status and the
# one line, asking of each worktree with work waiting, load neither to be told so (8 ms).
NEVER_FAILING = frozenset({"review", "maintenance"})
ENTRY_POINT_GROUP = "landwatch.kinds"
# How long a claim holds without renewal before anyone may take it over, and how many failed
# tries an item gets before it is given up: the reviewer's defaults for every kind.
DEFAULT_LEASE = 120.0
DEFAULT_MAX_TRIES = 5
# A landing bringing more commits than this that nobody reviewed is reviewed as one range, not
# commit by commit (the reflog sweep's rule, and the review kind's for commits nobody shared).
FLOOD = 20


class KindError(UserError):
    """A handler that cannot be loaded; one line for a person."""


def installed() -> dict[str, str]:
    """kind -> `module:Class` of every handler known without a command-line override."""
    from landwatch import plugins  # only when handlers are gathered

    specs = dict(BUILTIN)
    for entry_point in plugins.entry_points(ENTRY_POINT_GROUP):
        specs.setdefault(entry_point.name, entry_point.value)
    return specs


def handler_class(kind: str, spec: str) -> type[ItemHandler[Any]]:
    """The ItemHandler class `spec` (`module:Class`) names for `kind`; KindError saying why not."""
    from landwatch.kinds.base import ItemHandler
    from landwatch.work_item import is_kind_name

    if not is_kind_name(kind):
        raise KindError(f"{kind!r} is not a kind name ([a-z][a-z0-9_]{{0,31}})")
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise KindError(f"a handler is named module:Class, not {spec!r}")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise KindError(f"cannot load the handler {spec}: {error}") from None
    if not (isinstance(found, type) and issubclass(found, ItemHandler)):
        raise KindError(f"{spec} is not an ItemHandler")
    declared = getattr(found, "name", None)
    if declared != kind:
        shown = "no" if declared is None else repr(str(declared))
        raise KindError(f"{spec} handles {shown} items, not {kind!r}")
    return found


def load(kind: str, spec: str, *, max_tries: int, clock: Clock) -> ItemHandler[Any]:
    return handler_class(kind, spec)(max_tries=max_tries, clock=clock)


def failing(git_dir: Path, now: float) -> list[Failing]:
    """What the kinds say is failing in `git_dir` (status, the one line), the built-in ones
    first. Only a kind with work waiting there (ready, pending or claimed) can be failing, so
    only such a kind is asked, and loaded: status and the one line load none when nothing waits,
    and look for installed kinds only when an item of one that is not built in waits."""
    from landwatch.work_item import CLAIMED, PENDING, READY, entries, id_of_entry

    waiting = {
        id_of_entry(name).partition("-")[0]
        for state in (READY, PENDING, CLAIMED)
        for name in entries(git_dir, state)
    }
    built_in = [kind for kind in BUILTIN if kind in waiting and kind not in NEVER_FAILING]
    asked = built_in + sorted(waiting - BUILTIN.keys())
    found = (handler.failing(git_dir, now) for kind in asked if (handler := _class_of(kind)))
    return [said for said in found if said is not None]


@functools.cache
def _class_of(kind: str) -> type[ItemHandler[Any]] | None:
    """The handler class of `kind`, looked up once a process (status asks of every worktree);
    None for a kind nobody installed or one that cannot be loaded (the reviewer says why at
    start). A built-in kind is never looked for among the installed ones: it is theirs first."""
    spec = BUILTIN.get(kind) or installed().get(kind)
    if spec is None:
        return None
    try:
        return handler_class(kind, spec)
    except KindError:
        return None


def handlers(
    overrides: dict[str, str], *, max_tries: int, clock: Clock
) -> dict[str, ItemHandler[Any]]:
    """One handler per kind: the installed ones, replaced or joined by `overrides`."""
    specs = {**installed(), **overrides}
    return {
        kind: load(kind, spec, max_tries=max_tries, clock=clock) for kind, spec in specs.items()
    }
