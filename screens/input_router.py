"""Keys, pastes and the wheel: to the focused pane's child, or to a chord.

This module decides what a key means (the keymap's prefix state machine); the
focused `TerminalView` encodes it for its child's modes (application cursor
keys, the kitty keyboard flags, bracketed paste, mouse encodings) and sends it
through the engine.
"""

from __future__ import annotations

import os
import time
from typing import IO, TYPE_CHECKING

from textual import events
from textual.widget import Widget

from screens.key_gate import NOT_READY, NotReady
from zirv_dash.key_events import PRESS, RELEASE
from zirv_dash.keymap import Verdict

if TYPE_CHECKING:
    from screens.host import DashboardHost

WHEEL_STEP = 3
CHORD_HOLD = 0.25
KEY_HOLD = 0.03
"""After a chord / a typed key, parse only the focused pane for this long."""
NATIVE_OPENING_WAIT = 10.0
"""Longest keys typed ahead wait for a focused native pane to open its view."""


class InputRouter:
    def __init__(self, screen: DashboardHost) -> None:
        self._screen = screen
        self._wheel_told: set[str] = set()
        self._opening_since: float | None = None
        path = os.environ.get("ZIRV_CTX_DASH_KEYLOG")
        self._keylog: IO[str] | None = open(path, "a", encoding="utf-8") if path else None  # noqa: SIM115

    def close(self) -> None:
        if self._keylog is not None:
            self._keylog.close()
            self._keylog = None

    def opening(self) -> bool:
        """The focused pane is a native pane whose view is not up yet: keys typed
        ahead (at start, right after a spawn) wait for it rather than vanish,
        chords too, so they keep their order (at most NATIVE_OPENING_WAIT)."""
        screen = self._screen
        pane = screen.dash.focused_pane
        if pane is None or pane.kind != "native" or not pane.alive:
            self._opening_since = None
            return False
        native = screen.focused_native()
        if native is not None and native.is_mounted:
            self._opening_since = None
            return False
        now = time.monotonic()
        if self._opening_since is None:
            self._opening_since = now
        return now - self._opening_since < NATIVE_OPENING_WAIT

    def key(
        self, key: str, character: str | None, event_type: int = PRESS
    ) -> Widget | NotReady | None:
        """Run the key; returns the widget that should get it through Textual
        instead (a native pane's own keys), NOT_READY while that pane is still
        opening, else None. A repeat (kitty event type 2) is a press here; a
        release (3) only ever goes to the focused pane's child (`release`)."""
        screen = self._screen
        if event_type == RELEASE:
            self.release(key, character)
            return None
        if self.opening():
            return NOT_READY
        if screen.roster.capturing:  # the roster's search field is editing
            screen.roster.key(key, character)
            return None
        if screen.broadcast.active and not screen.keys.armed and screen.broadcast.ends_on(key):
            screen.broadcast.stop()
            return None
        result = screen.keys.feed(key, character)
        if self._keylog is not None:
            # Diagnostics without content: printable keys are logged by kind only.
            shown = key if not (character and character.isprintable()) else "<char>"
            self._keylog.write(f"{time.monotonic():.3f} {shown} {result.verdict.value}\n")
            self._keylog.flush()
        native = screen.focused_native()
        view = screen.review.focused_view()
        if result.verdict is Verdict.TO_CHILD:
            if native is not None:
                # A plain character goes straight into its composer (the gate
                # routes keys in order); anything else through Textual: its
                # composer, dialog and bindings take it.
                return None if native.type_now(key, character) else native
            if view is not None:
                screen.engine.pump.hold_background(KEY_HOLD)  # its echo comes first
                view.send_key(key, character, event_type)
                screen.broadcast.fan_out(key, character)
            return None  # typing costs nothing beyond the write
        if result.verdict is Verdict.LITERAL_PREFIX:
            if view is not None and native is None:
                view.send_raw_key(screen.keys.keymap.prefix)
        elif result.verdict is Verdict.ACTION and result.action:
            # The chord's overlay draws before the hidden panes' backlog is parsed.
            screen.engine.pump.hold_background(CHORD_HOLD)
            screen.dismiss_tip()
            screen.run_chord(result.action)
        screen.chrome.schedule()  # the armed prefix shows in the footer
        return None

    def release(self, key: str, character: str | None) -> None:
        """A key release, for the focused terminal pane's child: sent only if it
        asked for event types and was sent the press (the view keeps those), so
        the release of a chord's key, which the child never saw, stays here."""
        screen = self._screen
        if screen.roster.capturing or screen.keys.armed or screen.focused_native() is not None:
            return
        view = screen.review.focused_view()
        if view is not None:
            view.send_key(key, character, RELEASE)

    def paste(self, text: str) -> Widget | NotReady | None:
        if self.opening():
            return NOT_READY
        if self._screen.roster.capturing:
            self._screen.roster.paste(text)
            return None
        native = self._screen.focused_native()
        if native is not None:
            return native  # one block into its composer
        view = self._screen.review.focused_view()
        if view is not None:
            view.send_paste(text)
            self._screen.broadcast.fan_out_paste(text)
        return None

    def wheel(self, event: events.MouseEvent, lines: int) -> None:
        screen = self._screen
        pane = screen.dash.focused_pane
        if pane is None or pane.kind == "native":
            return  # a native pane's transcript scrolls itself
        event.stop()
        model = pane.model_view
        if model.mouse_tracking and not pane.scroll_offset:
            # The child asked for mouse reports (claude does): it scrolls itself.
            view = screen.views.get(pane.short)
            offset = event.get_content_offset(view) if view is not None else None
            if view is None or offset is None:
                return
            view.send_wheel(lines > 0, offset.x, offset.y)
            if pane.short not in self._wheel_told:
                self._wheel_told.add(pane.short)
                screen.dash.notify(
                    "pane is in full-screen mode -- scrolling is forwarded to the app"
                )
            return
        screen.panes.scroll(lines)
