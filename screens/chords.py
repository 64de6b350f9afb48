"""Chords: which controller runs a keymap action, and why one cannot run now.

`unavailable` is the single answer the palette, menus, hints and
`DashboardScreen.check_action` share.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from screens.host import DashboardHost

NATIVE_UNAVAILABLE = {
    "handover": "a native pane has no harness to hand over (its route is in native.toml)",
    "copy_mode": "a native pane's transcript scrolls and copies itself",
}
"""Chords that act on a pane's child or terminal screen: not for a native pane."""


class Chords:
    def __init__(self, screen: DashboardHost, controllers: tuple[object, ...]) -> None:
        self._screen = screen
        self._controllers = controllers

    def handler(self, action: str) -> Callable[[], Any] | None:
        for controller in self._controllers:
            found: Callable[[], Any] | None = getattr(controller, f"action_{action}", None)
            if found is not None:
                return found
        return None

    def unavailable(self, action: str) -> str | None:
        """Why chord `action` cannot run now, or None."""
        screen = self._screen
        if not action.startswith("focus_") and self.handler(action) is None:
            return "not available in this build"
        if action in NATIVE_UNAVAILABLE and screen.focused_native() is not None:
            return NATIVE_UNAVAILABLE[action]
        return screen.review.unavailable(action)

    def run(self, action: str) -> None:
        """Run a keymap action (from a chord, the palette, a menu or a hint)."""
        screen = self._screen
        native = screen.focused_native() is not None
        why = NATIVE_UNAVAILABLE.get(action) if native else None
        if why is not None:
            screen.dash.notify(f"{action.replace('_', ' ')}: {why}")
        elif action.startswith("focus_"):
            screen.panes.action_focus(int(action.split("_")[1]) - 1)
        else:
            handler = self.handler(action)
            if handler is None:
                screen.dash.notify(f"{action.replace('_', ' ')}: not available yet")
            else:
                handler()
        screen.chrome.schedule()
