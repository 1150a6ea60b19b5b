"""Finding the handlers of the kinds: built-in ones, overrides by hand, and one clear line for
every way a handler cannot be loaded."""

from __future__ import annotations

import pytest

from landwatch import kinds
from landwatch.kinds import KindError
from support.kinds import FakeClock


def test_the_built_in_kinds_have_handlers_named_after_them() -> None:
    handlers = kinds.handlers({}, max_tries=3, clock=FakeClock())
    assert set(handlers) >= {"review", "push", "maintenance"}
    for kind, handler in handlers.items():
        assert handler.name == kind and handler.max_tries == 3
        handler.close()


def test_an_override_replaces_a_kind_and_a_new_name_adds_one() -> None:
    clock = FakeClock()
    handlers = kinds.handlers(
        {"review": "support.handlers:Noop", "added": "kinds.test_a_new_kind:LinesAdded"},
        max_tries=5,
        clock=clock,
    )
    assert type(handlers["review"]).__name__ == "Noop"
    assert type(handlers["added"]).__name__ == "LinesAdded"
    assert all(handler.clock is clock for handler in handlers.values())


@pytest.mark.parametrize(
    ("kind", "spec", "said"),
    [
        ("review", "support.handlers", "module:Class"),
        ("review", "no_such_module:Handler", "cannot load the handler"),
        ("review", "support.handlers:Nothing", "cannot load the handler"),
        ("review", "support.handlers:journal", "is not an ItemHandler"),
        ("push", "support.handlers:Noop", "handles 'review' items, not 'push'"),
        ("Not A Kind", "support.handlers:Noop", "is not a kind name"),
    ],
)
def test_a_handler_that_cannot_be_used_is_one_line(kind: str, spec: str, said: str) -> None:
    with pytest.raises(KindError, match=said) as raised:
        kinds.load(kind, spec, max_tries=5, clock=FakeClock())
    assert "\n" not in str(raised.value)


def test_the_kinds_status_never_asks_are_those_that_never_say_they_fail() -> None:
    """NEVER_FAILING spares status and the one line loading a kind to be told None: each is a
    built-in kind whose handler keeps ItemHandler's failing; every other built-in one has its
    own."""
    from landwatch.kinds.base import ItemHandler

    for kind, spec in kinds.BUILTIN.items():
        handler = kinds.handler_class(kind, spec)
        below = handler.__mro__[: handler.__mro__.index(ItemHandler)]
        inherited = all("failing" not in vars(each) for each in below)
        assert inherited == (kind in kinds.NEVER_FAILING), kind
