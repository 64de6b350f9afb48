"""Broadcast chords and the fan-out of typed input to the chosen panes.

`^A B` opens the picker (or ends a broadcast that is on); while broadcast is on
the input router calls `fan_out` after each key it sends to the focused pane and
`fan_out_paste` after each paste, and Esc ends it (`ends_on`). Each chosen
pane's own `TerminalView` encodes the key, so a pane in application-cursor or
kitty-keyboard mode gets the bytes it asked for, whatever the focused one uses.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

from zirv_dash.dash.broadcast import Broadcast

if TYPE_CHECKING:
    from screens.host import DashboardHost


class _Typist(Protocol):
    """What a pane's view offers for typing (a `TerminalView`)."""

    def send_key(self, key: str, character: str | None) -> None: ...
    def send_paste(self, text: str) -> None: ...


class BroadcastActions:
    def __init__(self, screen: DashboardHost) -> None:
        self._screen = screen
        self.model = Broadcast()

    # -- state ---------------------------------------------------------------------------

    @property
    def active(self) -> bool:
        return self.model.active

    def marker(self, short: str) -> str:
        """`⇶` for a pane that receives the broadcast, else empty (row and tab)."""
        return self.model.marker(short)

    def header_text(self) -> str:
        """`⇶ broadcast to 2 panes · Esc ends` while on, else empty."""
        text = self.model.describe()
        return f"{text} · Esc ends" if text else ""

    @staticmethod
    def ends_on(key: str) -> bool:
        """The key that ends a broadcast instead of being typed."""
        return key == "escape"

    # -- chords --------------------------------------------------------------------------

    def action_broadcast(self) -> None:
        """Pick the panes (or, when on, end the broadcast: the same chord toggles)."""
        # The picker is imported when first opened: not on the first frame's path.
        from screens.broadcast_picker import BroadcastPicker, PickRow

        screen = self._screen
        if self.model.active:
            self.stop()
            return
        focused = screen.dash.focused_pane
        rows = [
            PickRow(p.short, f"{p.title} {p.agent}", focused=p is focused)
            for p in screen.dash.panes
            if p.alive and p.short in screen.views  # a terminal pane (not a native one)
        ]
        chosen = [focused.short] if focused is not None and focused.alive else []
        screen.app.push_screen(BroadcastPicker(rows, chosen), self._picked)

    def _picked(self, shorts: list[str] | None) -> None:
        screen = self._screen
        if not shorts:
            return
        focused = screen.dash.focused_pane
        others = [s for s in shorts if focused is None or s != focused.short]
        if not others:
            screen.dash.notify("broadcast: choose a pane besides the focused one")
            return
        if focused is not None and focused.alive and focused.short not in shorts:
            shorts = [focused.short, *shorts]
        self.model.start(shorts)
        screen.dash.notify(f"{self.model.describe()} · Esc ends")
        screen.chrome.schedule()

    def stop(self) -> None:
        if not self.model.active:
            return
        self.model.stop()
        self._screen.dash.notify("broadcast ended")
        self._screen.chrome.schedule()

    # -- fan-out -------------------------------------------------------------------------

    def fan_out(self, key: str, character: str | None) -> None:
        """Send a key the focused pane just got to every other chosen live pane."""
        self._each(lambda view: view.send_key(key, character))

    def fan_out_paste(self, text: str) -> None:
        self._each(lambda view: view.send_paste(text))

    def _each(self, send: Callable[[_Typist], None]) -> None:
        if not self.model.active:
            return
        screen = self._screen
        focused = screen.dash.focused_pane
        targets = self.model.targets(focused.short if focused else None, self._alive)
        views: Mapping[str, _Typist] = screen.views
        for short in targets.send:
            view = views.get(short)
            if view is not None:
                send(view)
        if targets.ended:
            left = ", ".join(targets.ended)
            tail = "" if self.model.active else "; broadcast ended"
            screen.dash.notify(f"broadcast: {left} ended, left out{tail}")
            screen.chrome.schedule()

    def _alive(self, short: str) -> bool:
        pane = self._screen.dash.pane_by_short(short)
        return pane is not None and pane.alive
