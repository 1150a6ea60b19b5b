"""Where landwatch's hook sits for one event beside another tool's, how `install` puts it there
and how `uninstall` takes it away, leaving exactly what that tool alone would have.

Each tool has the integration that survives its own reinstall where one exists: pre-commit and
prek run a hook they moved aside as `<event>.legacy`, so ours rides there; husky's hooks are
shims that find the user's script by their own name, so ours takes the shim's name and runs
husky under it; lefthook, git-lfs and hand-written hooks are run first by ours, kept aside as
`<event>.before-landwatch`. lefthook never runs a hook it moved aside, so ours is marked as one
lefthook may replace: its reinstall overwrites ours (the reflog sweep covers; `landwatch
install` or `doctor --fix` puts it back) instead of failing on a `.old` it cannot make. husky 4
skips a hook it does not take for its own: ours says its mark only where husky 4 would have
written its own hook (HUSKY_4_MAY_REPLACE), never over a hook of yours that ours runs.
landwatch writes no links: a link in a slot is the person's, kept aside and put back as a link.
"""

from __future__ import annotations

import contextlib
import enum
import filecmp
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from landwatch import layout
from landwatch.errors import UserError
from landwatch.files import read_file, write_atomic
from landwatch.hooks import INSTALLED_EVENTS, chained_path, uninstalled, whose

# The tools that run their `<event>.legacy` hook first (and restore it at their uninstall).
LEGACY_RUNNERS = ("pre-commit", "prek")
# Of those, the ones that give it no stdin (post-rewrite's list is lost; the sweep records it).
LEGACY_WITHOUT_STDIN = ("pre-commit",)
# Hooks of tools that are copies of one template: a stale copy beside a fresh one is the same.
GENERATED = ("pre-commit", "prek", "lefthook", "husky", "husky 4", "git-lfs")


class SlotError(UserError):
    """The hooks of this event are in a state install cannot sort out alone; says what to do."""


class Integration(enum.Enum):
    ALONE = "alone"  # nothing else runs at this event
    CHAIN = "chain"  # ours runs the hook it moved aside first, with the same arguments and stdin
    LEGACY = "legacy"  # ours is pre-commit's or prek's <event>.legacy, which they run first
    HUSKY = "husky"  # ours replaces husky's shim and runs husky's `h` under the shim's name
    LEFTHOOK = "lefthook"  # as CHAIN, and marked so that lefthook's reinstall may replace it
    HUSKY_4 = "husky 4"  # as CHAIN, the hook kept husky 4's: marked as its own (below)


# Where ours says husky 4's mark (husky 4 takes a hook that says it for its own: its install
# writes over it, its uninstall removes it): where husky 4 would have its own hook without
# landwatch, the slot empty or its hook kept aside. There the mark loses nothing (doctor --fix
# puts ours back; a kept copy of husky 4's is its template) and is needed: unmarked, ours would
# leave husky 4's hook unwritten, or run its copy after its uninstall took husky.sh away (every
# push failed). Anywhere else (your hook kept, another tool's) husky 4 skips ours as it skipped
# that hook: marked, ours was written over, and the hook it ran never ran again.
HUSKY_4_MAY_REPLACE = (Integration.ALONE, Integration.HUSKY_4)
# How ours runs the hook it keeps aside, by whose that hook is (any other's: CHAIN).
_CHAINED_AS = {
    "husky": Integration.HUSKY,
    "lefthook": Integration.LEFTHOOK,
    "husky 4": Integration.HUSKY_4,
}


class Placed(NamedTuple):
    """Where ours went for one event, and what to say of it."""

    path: Path
    integration: Integration
    said: tuple[str, ...] = ()


def is_husky_dir(directory: Path) -> bool:
    """husky 9's generated directory: its `h` beside the shims that run it."""
    return (directory / "h").is_file() and whose(directory / "pre-commit") == "husky"


def legacy_path(slot: Path) -> Path:
    return slot.with_name(slot.name + ".legacy")


def old_path(slot: Path) -> Path:
    return slot.with_name(slot.name + ".old")


def conflict(slot: Path) -> str | None:
    """What keeps `place` from sorting out this event's hooks alone (None: nothing)."""
    chained, legacy = chained_path(slot), legacy_path(slot)
    owner = _owner(slot)
    if not os.path.lexists(chained) or owner in (None, "landwatch") or _husky_4_over_ours(slot):
        return None
    if owner in LEGACY_RUNNERS:
        if whose(chained) in LEGACY_RUNNERS:
            return None
        aside = legacy if os.path.lexists(legacy) and _owner(legacy) != "landwatch" else None
    else:
        aside = slot
    if aside is None or _stale(chained, aside) or _lefthook_keeps_it(slot):
        return None
    return (
        f"{aside} is not landwatch's, and {chained.name} already holds the hook landwatch "
        "chained before; move one of them away and run install again"
    )


def place(slot: Path, write: Callable[[Path, Integration], None]) -> Placed:
    """Put landwatch's hook for `slot`'s event beside whatever is there; `write(path, how)`
    writes ours. Safe to repeat: a reinstall upgrades ours and mends what another tool's
    reinstall left behind."""
    said: list[str] = []
    chained, legacy, old = chained_path(slot), legacy_path(slot), old_path(slot)
    if _owner(old) == "landwatch":
        # lefthook moved ours there and never runs it.
        os.unlink(old)
        said.append(f"removed landwatch's {old.name}, which lefthook never runs")
    owner = _owner(slot)
    if owner == "landwatch" and whose(chained) in LEGACY_RUNNERS:
        # Written by an older landwatch over pre-commit/prek: their script back in its slot,
        # ours in the slot they run and keep.
        os.replace(chained, slot)
        owner = _owner(slot)
    if owner == "landwatch":
        how = _integration_of_ours(slot)
        write(slot, how)
        return Placed(slot, how, tuple(said))
    if owner in LEGACY_RUNNERS:
        if whose(chained) in LEGACY_RUNNERS:
            os.unlink(chained)  # a stale copy of their script from an older arrangement
        if os.path.lexists(legacy) and _owner(legacy) != "landwatch":
            _make_room(legacy, chained)
            said.append(f"kept the hook {owner} ran as {legacy.name} as {chained.name}")
        write(legacy, Integration.LEGACY)
        said.append(f"{owner} runs landwatch's hook as {legacy.name} (its own reinstall keeps it)")
        return Placed(legacy, Integration.LEGACY, tuple(said))
    if owner is None:
        if os.path.lexists(chained) and whose(chained) in GENERATED:
            os.unlink(chained)  # that tool removed itself from the slot since
        how = Integration.CHAIN if os.path.lexists(chained) else Integration.ALONE
        write(slot, how)
        return Placed(slot, how, tuple(said))
    if _husky_4_over_ours(slot):
        return _over_husky_4(slot, write)
    return _in_front(slot, owner, write, said)


def _in_front(
    slot: Path, owner: str, write: Callable[[Path, Integration], None], said: list[str]
) -> Placed:
    """Ours written in front of `owner`'s hook in the slot, kept aside and run first (what was
    kept there before moved out of the way where that loses nothing); `said` and what to say."""
    chained, old = chained_path(slot), old_path(slot)
    how = _CHAINED_AS.get(owner, Integration.CHAIN)
    if _lefthook_keeps_it(slot):
        said.append(
            f"kept {_whose_hook(chained)} {slot.name} hook, which landwatch ran, as "
            f"{old.name}, where lefthook alone would have kept it"
        )
        _restore(chained, old)
    _make_room(slot, chained)
    write(slot, how)
    if how is Integration.HUSKY:
        said.append(
            f"husky's {slot.name} shim kept as {chained.name}; landwatch's hook runs husky "
            f"under the name {slot.name}"
        )
    else:
        said.append(
            f"kept {_whose_hook(chained)} {slot.name} hook as {chained.name}; it still runs first"
        )
    if how is Integration.LEFTHOOK:
        said.append(
            "lefthook's own reinstall (and lefthook.yml changes) will replace landwatch's "
            f"{slot.name}: the reflog sweep reviews what lands meanwhile, and `landwatch doctor "
            "--fix` puts it back"
        )
    if owner == "git-lfs":
        said.append(
            '`git lfs install` will now say "Hook already exists: pre-push" and stop there: '
            "landwatch runs git-lfs's hooks, nothing is missing"
        )
    return Placed(slot, how, tuple(said))


def runs_ours(slot: Path) -> bool:
    """Whether landwatch's hook of `slot`'s event runs when git runs that event: in the slot, or
    as the `.legacy` hook of the pre-commit or prek script there."""
    owner = _owner(slot)
    return owner == "landwatch" or (
        owner in LEGACY_RUNNERS and whose(legacy_path(slot)) == "landwatch"
    )


def where_ours(slot: Path) -> Path | None:
    """Where landwatch's hook of `slot`'s event is, run or not: the slot, the `.legacy` of
    pre-commit or prek, or the `.old` lefthook moved it to; None: nowhere (withdraw's places)."""
    places = (slot, legacy_path(slot), old_path(slot))
    return next((place for place in places if _owner(place) == "landwatch"), None)


def withdraw(slot: Path) -> tuple[str, ...]:
    """Take landwatch's hook of `slot`'s event away, wherever it sits, and put back what the
    other tool alone would have there; what was done, to say."""
    chained, legacy, old = chained_path(slot), legacy_path(slot), old_path(slot)
    if _owner(slot) == "landwatch":
        os.unlink(slot)
        if os.path.lexists(chained):
            _restore(chained, slot)
            return (f"restored your {slot.name} hook",)
        return ()
    if _owner(legacy) == "landwatch":
        os.unlink(legacy)
        return _put_back(slot, legacy)
    if _owner(old) == "landwatch":
        os.unlink(old)
        return _put_back(slot, old)
    if not os.path.lexists(chained) or whose(chained) == "landwatch":
        if os.path.lexists(slot):
            return (f"{slot} is not landwatch's; left as it is",)
        return ()
    if _husky_4_over_ours(slot):
        _restore(chained, slot)  # husky 4 alone leaves it there, and skips it
        return (
            f"restored your {slot.name} hook (husky 4 had written over landwatch's, which ran it)",
        )
    # Ours was replaced by a tool's reinstall, or deleted: the copy we kept goes only where it
    # is a stale copy of what is there now; else where that tool keeps the hook it found (its
    # own place where the slot is empty). git-lfs's hook is never taken for a tool's own.
    if _stale(chained, slot):
        tool = whose(chained)
        os.unlink(chained)
        return (f"removed {chained.name}, a stale copy of {tool}'s hook",)
    if not os.path.lexists(slot):
        # That tool removed itself (and ours) since, not the person this slot's; git-lfs never
        # removes ours (lfs_slots).
        if (tool := whose(chained)) in GENERATED and tool != "git-lfs" and uninstalled(slot, tool):
            os.unlink(chained)
            return (f"removed {chained.name}: {tool} uninstalled itself since",)
        _restore(chained, slot)
        return (f"restored your {slot.name} hook",)
    owner = _owner(slot)
    target = {"lefthook": old, "pre-commit": legacy, "prek": legacy}.get(owner or "")
    if target is not None and not os.path.lexists(target):
        _restore(chained, target)
        return (f"put your hook back as {target.name}, where {owner} keeps it",)
    return (f"left {chained} (your hook, which landwatch ran) as it is",)


def _put_back(slot: Path, where: Path) -> tuple[str, ...]:
    """The hook ours ran put back at `where` (the `.legacy` or `.old` ours sat at), as the tool
    now in `slot` alone keeps the hook it found (git-lfs's, pre-commit runs); its own copy goes."""
    chained = chained_path(slot)
    if not os.path.lexists(chained):
        return ()
    if _stale(chained, slot):
        os.unlink(chained)
        return ()
    named = _whose_hook(chained)
    _restore(chained, where)
    return (f"restored {named} hook as {where.name}",)


def _stale(kept: Path, hook: Path) -> bool:
    """Whether `kept`, kept aside, is a stale copy of `hook`, lost by nothing when deleted: that
    tool's own generated script again, or the same bytes and mode (an installer run again)."""
    tool, other = whose(kept), whose(hook)
    if tool in GENERATED and (tool == other or {tool, other} <= set(LEGACY_RUNNERS)):
        return True
    try:
        kept_stat, hook_stat = os.lstat(kept), os.lstat(hook)
    except OSError:
        return False
    if kept_stat.st_mode != hook_stat.st_mode or not stat.S_ISREG(kept_stat.st_mode):
        return False
    return filecmp.cmp(kept, hook, shallow=False)


def _lefthook_keeps_it(slot: Path) -> bool:
    """Whether the hook ours ran goes from beside it to `.old`, making room for lefthook's: lefthook
    moved ours (which ran it) there, and alone would have moved that hook there itself."""
    chained, old = chained_path(slot), old_path(slot)
    return (
        _owner(slot) == "lefthook"
        and os.path.lexists(chained)
        and not _stale(chained, slot)
        and _owner(old) in (None, "landwatch")
    )


def _whose_hook(path: Path) -> str:
    """Whose the hook at `path` is, as a line says it: "your", "lefthook's"."""
    owner = _owner(path)
    return "your" if owner in (None, "yours") else f"{owner}'s"


def _husky_4_over_ours(slot: Path) -> bool:
    """Whether husky 4 wrote over ours where ours ran a hook not husky 4's, kept aside (an
    older landwatch marked every hook of its as husky 4's): husky 4 writes only over a hook with
    its mark, and a `.before-landwatch` is only ever beside ours. Alone, husky 4 skips that hook."""
    chained = chained_path(slot)
    return (
        _owner(slot) == "husky 4"
        and os.path.lexists(chained)
        and _owner(chained) not in ("husky 4", "landwatch")
    )


def _over_husky_4(slot: Path, write: Callable[[Path, Integration], None]) -> Placed:
    """Ours written again over the template husky 4 wrote over it (`_husky_4_over_ours`), in
    front of the hook kept aside: the hook husky 4 alone skips."""
    how = _integration_of_ours(slot)
    write(slot, how)
    said = (
        f"husky 4 had written over landwatch's {slot.name}, which runs {chained_path(slot).name} "
        "first: written again, without the mark husky 4 took it by"
    )
    return Placed(slot, how, (said,))


def _owner(path: Path) -> str | None:
    """Whose hook is at `path`: a tool's name, "landwatch", "yours" (unknown), None (none). A
    link is never landwatch's (it writes none), even one to ours: one script for two events."""
    if not os.path.lexists(path):
        return None
    owner = whose(path) or "yours"
    return "yours" if owner == "landwatch" and os.path.islink(path) else owner


def _integration_of_ours(slot: Path) -> Integration:
    chained = chained_path(slot)
    if not os.path.lexists(chained):
        return Integration.ALONE
    return _CHAINED_AS.get(whose(chained) or "", Integration.CHAIN)


def _make_room(hook: Path, chained: Path) -> None:
    """Move `hook` aside as `chained` (`conflict` said whether that may replace something)."""
    if os.path.lexists(chained) and not _stale(chained, hook):
        raise SlotError(f"{chained} is in the way; nothing of this event was changed")
    os.replace(hook, chained)


def follow_kept_siblings(hooks_dir: Path) -> None:
    """Once every event is placed, a kept link to another event's hook beside it (`post-merge ->
    post-commit`) made to name what is kept from there, not landwatch's hook now in that slot."""
    for event in INSTALLED_EVENTS:
        kept = chained_path(hooks_dir / event)
        sibling = _sibling_named(kept)
        if sibling in INSTALLED_EVENTS and _owner(hooks_dir / sibling) == "landwatch":
            _relink(kept, f"{sibling}{layout.CHAINED_SUFFIX}")


def _restore(kept: Path, where: Path) -> None:
    """The hook kept aside back at `where` as it was: a link `follow_kept_siblings` made name a
    kept hook names that hook's slot again."""
    sibling = _sibling_named(kept) or ""
    event = sibling.removesuffix(layout.CHAINED_SUFFIX)
    if event != sibling and event in INSTALLED_EVENTS:
        _relink(kept, event)
    os.replace(kept, where)


def _sibling_named(path: Path) -> str | None:
    """The name of the file beside `path` that `path`, a link, names (None: not a link, or one
    naming something elsewhere), whether it spells it `post-commit`, `./post-commit` or whole."""
    try:
        target = os.readlink(path)
    except OSError:
        return None
    named = path.parent / target
    if os.path.basename(target) != named.name or named.parent.resolve() != path.parent.resolve():
        return None
    return named.name


def _relink(link: Path, name: str) -> None:
    """The link at `link` made to name `name` instead of the file it names beside it, however
    it spelled the way there (`./`, the whole path), in one rename."""
    target = os.readlink(link)
    relinked = link.with_name(f".{link.name}.relinked")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(relinked)  # left by an install that died here
    os.symlink(target[: len(target) - len(os.path.basename(target))] + name, relinked)
    os.replace(relinked, link)


def recorded_hooks_dir(common: Path) -> Path | None:
    """Where install wrote this repository's hooks (uninstall takes them from there)."""
    try:
        text = read_file(layout.HOOKS_DIR.path(common), trusted=common).decode().strip()
    except (OSError, UnicodeDecodeError):
        return None
    return Path(text) if text else None


def record_hooks_dir(common: Path, hooks_dir: Path) -> None:
    write_atomic(layout.HOOKS_DIR.path(common), f"{hooks_dir}\n", trusted=common)
