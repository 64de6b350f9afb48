"""`Pane.kept()` / `restore()`: everything a successor replaces comes back."""

from __future__ import annotations

from collections import deque
from typing import Any

from zirv_dash.panes.kept import CHILD_FIELDS
from zirv_dash.panes.pane import Pane


class _Spy:
    """Records every attribute `Pane._fresh_child` sets."""

    def __init__(self) -> None:
        object.__setattr__(self, "names", set())
        object.__setattr__(self, "inbox", deque())

    def __setattr__(self, name: str, value: Any) -> None:
        self.names.add(name)
        object.__setattr__(self, name, value)


def test_every_field_a_successor_resets_is_kept() -> None:
    spy = _Spy()
    Pane._fresh_child(spy, "demo", 1000, False, screen_dirty=False)  # type: ignore[arg-type]
    missing = spy.names - set(CHILD_FIELDS)
    assert not missing, f"Pane._fresh_child sets {missing}: add them to CHILD_FIELDS"
