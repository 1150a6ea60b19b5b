"""The kinds of landed work the reviewer runs, one module each; this finds their handlers.

A kind is named by the work item's kind; its handler is a `WorkItemKind` class given as
`module:Class`. Built-in ones are listed here as they exist; `--kind KIND=module:Class` replaces
one.
"""

from __future__ import annotations

import importlib
from typing import Any

from landwatch.errors import UserError
from landwatch.kinds.base import WorkItemKind
from landwatch.work_item import WorkKind

BUILTIN: dict[WorkKind, str] = {
    WorkKind.REVIEW: "landwatch.kinds.review:ReviewKind",
    WorkKind.PUSH: "landwatch.kinds.push:PushKind",
    WorkKind.MAINTENANCE: "landwatch.kinds.maintenance:MaintenanceKind",
}


class KindError(UserError):
    """A handler that cannot be loaded; one line for a person."""


def load(spec: str, *, max_tries: int) -> WorkItemKind[Any]:
    module_name, _, attribute = spec.partition(":")
    if not module_name or not attribute:
        raise KindError(f"a handler is named module:Class, not {spec!r}")
    try:
        found = getattr(importlib.import_module(module_name), attribute)
    except (ImportError, AttributeError) as error:
        raise KindError(f"cannot load the handler {spec}: {error}") from None
    if not (isinstance(found, type) and issubclass(found, WorkItemKind)):
        raise KindError(f"{spec} is not a WorkItemKind")
    handler: WorkItemKind[Any] = found(max_tries=max_tries)
    return handler


def handlers(overrides: dict[str, str], *, max_tries: int) -> dict[WorkKind, WorkItemKind[Any]]:
    specs = {kind: spec for kind, spec in BUILTIN.items()}
    for name, spec in overrides.items():
        try:
            specs[WorkKind(name)] = spec
        except ValueError:
            raise KindError(f"no kind of work is called {name!r}") from None
    return {kind: load(spec, max_tries=max_tries) for kind, spec in specs.items()}
