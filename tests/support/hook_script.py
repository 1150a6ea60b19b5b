"""githooks/hook.sh as a file of shell functions: a test sources it and runs one of them by the
hook's own code, with no landing (the settings' reader, the line's escaper)."""

from __future__ import annotations

from support import ROOT

HOOK = ROOT / "githooks" / "hook.sh"
HOOK_END = 'lw_record "$@" 3>&2 2>/dev/null\n'


def hook_functions(hook: str) -> str:
    """The hook up to its last call: every function defined and every early exit passed by (run
    as no post-commit hook, the quick way returns at once), nothing recorded."""
    assert hook.count(HOOK_END) == 1
    return hook[: hook.index(HOOK_END)]
