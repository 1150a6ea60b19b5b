"""The built-in rules, one module per family, and the plug-in rules of installed packages.

A package adds rules by naming Rule subclasses (or lists of them) in the `landwatch.rules`
entry point group; nothing in landwatch is edited.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable

from landwatch.review.rules.base import Rule

ENTRY_POINT_GROUP = "landwatch.rules"


def builtin_rules() -> list[type[Rule]]:
    from landwatch.review.rules import change_rules, message, patch, secrets

    return [*patch.RULES, *secrets.RULES, *message.RULES, *change_rules.RULES]


_found: dict[tuple[str, ...], tuple[list[type[Rule]], list[str]]] = {}


def plugin_rules() -> tuple[list[type[Rule]], list[str]]:
    """Rules from installed packages, and one line per entry point that could not be used.

    Looked up once per process and import path: reading every installed package's metadata
    costs milliseconds per review in a large environment. A warm worker sees a plug-in installed
    since at its next start.
    """
    key = tuple(sys.path)
    if key not in _found:
        _found[key] = _look_up_plugins()
    rules, problems = _found[key]
    return list(rules), list(problems)


def _look_up_plugins() -> tuple[list[type[Rule]], list[str]]:
    from landwatch import plugins  # only when rules are gathered: a report reader need not pay it

    found: list[type[Rule]] = []
    problems: list[str] = []
    for entry_point in plugins.entry_points(ENTRY_POINT_GROUP):
        try:
            loaded = entry_point.load()
        except Exception as error:  # a broken plug-in must not break the review
            problems.append(f"plug-in rule {entry_point.name}: {type(error).__name__}: {error}")
            continue
        candidates = loaded if isinstance(loaded, Iterable) else [loaded]
        for candidate in candidates:
            if (
                isinstance(candidate, type)
                and issubclass(candidate, Rule)
                and hasattr(candidate, "id")
            ):
                found.append(candidate)
            else:
                problems.append(f"plug-in rule {entry_point.name}: {candidate!r} is not a Rule")
    return found, problems


def all_rules() -> tuple[list[type[Rule]], list[str]]:
    rules = builtin_rules()
    taken = {rule.id for rule in rules} | {rule.name for rule in rules}
    plugins, problems = plugin_rules()
    for plugin in plugins:
        if plugin.id in taken or plugin.name in taken:
            problems.append(
                f"plug-in rule {plugin.id} ({plugin.name}) clashes with a rule "
                "already known; ignored"
            )
            continue
        taken |= {plugin.id, plugin.name}
        rules.append(plugin)
    return rules, problems
