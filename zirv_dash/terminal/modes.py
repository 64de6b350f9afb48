"""Terminal modes (DECSET/DECRST and friends), DECRQM reports and RIS.

The base of the model's layers: it holds the screen, the pending replies and
every mode a child can set; ``strings`` (OSC/DCS), ``dispatch`` (controls,
ESC and CSI) and ``parser`` build on it.
"""

from __future__ import annotations

import time

from .screen import Screen

SYNC_TIMEOUT = 1.0

_MOUSE_MODES = (1000, 1002, 1003)
_PRIVATE_MODES_REPORTED = frozenset(
    {1, 6, 7, 25, 47, 1047, 1049, 1000, 1002, 1003, 1004, 1006, 1015, 2004, 2026, 2027}
)


class Modes:
    """Mode state, as the child set it, and how it is reported."""

    def __init__(self, screen: Screen) -> None:
        self._screen = screen
        self._replies: list[str] = []
        self._cursor_visible = True
        self._app_cursor_keys = False
        self._bracketed_paste = False
        self._mouse: set[int] = set()
        self._mouse_sgr = False
        self._mouse_urxvt = False
        self._focus_events = False
        self._sync_since: float | None = None
        self._kitty_flags: list[int] = [0]
        self._title = ""
        self.cursor_shape = 0
        self.bells = 0

    @property
    def cursor_visible(self) -> bool:
        return self._cursor_visible

    @property
    def title(self) -> str:
        return self._title

    @property
    def app_cursor_keys(self) -> bool:
        return self._app_cursor_keys

    @property
    def bracketed_paste(self) -> bool:
        return self._bracketed_paste

    @property
    def mouse_tracking(self) -> int:
        return max(self._mouse) if self._mouse else 0

    @property
    def mouse_encoding(self) -> str:
        if self._mouse_sgr:
            return "sgr"
        if self._mouse_urxvt:
            return "urxvt"
        return "x10"

    @property
    def grapheme_clusters(self) -> bool:
        """Mode 2027: the child asked for grapheme clusters as one unit."""
        return self._screen.graphemes

    @property
    def focus_events(self) -> bool:
        return self._focus_events

    @property
    def keyboard_flags(self) -> int:
        """Kitty keyboard protocol flags the child pushed (0 = legacy keys)."""
        return self._kitty_flags[-1]

    @property
    def synchronized(self) -> bool:
        since = self._sync_since
        if since is None:
            return False
        if time.monotonic() - since < SYNC_TIMEOUT:
            return True
        return False

    def _private_mode(self, mode: int, on: bool) -> None:
        scr = self._screen
        if mode == 1:
            self._app_cursor_keys = on
        elif mode == 25:
            self._cursor_visible = on
        elif mode == 7:
            scr.autowrap = on
        elif mode == 6:
            scr.origin = on
            scr.cursor_position()
        elif mode == 1049:
            if on:
                scr.alternate_on(save_cursor=True)
            else:
                scr.alternate_off(restore_cursor=True)
        elif mode == 47 or mode == 1047:
            if on:
                scr.alternate_on(save_cursor=False)
            else:
                scr.alternate_off(restore_cursor=False)
        elif mode in _MOUSE_MODES:
            if on:
                self._mouse.add(mode)
            else:
                self._mouse.discard(mode)
        elif mode == 1006:
            self._mouse_sgr = on
        elif mode == 1015:
            self._mouse_urxvt = on
        elif mode == 1004:
            self._focus_events = on
        elif mode == 2004:
            self._bracketed_paste = on
        elif mode == 2026:
            self._sync_since = time.monotonic() if on else None
        elif mode == 2027:
            scr.graphemes = on
        elif mode == 3:
            # DECCOLM: tmux does not change the width but clears and homes.
            scr._blank_rows(0, scr.rows)
            scr.top, scr.bottom = 0, scr.rows - 1
            scr.x = scr.y = 0

    def _mode_state(self, mode: int) -> bool:
        s = self._screen
        return {
            1: self._app_cursor_keys,
            6: s.origin,
            7: s.autowrap,
            25: self._cursor_visible,
            47: s.alt,
            1047: s.alt,
            1049: s.alt,
            1000: 1000 in self._mouse,
            1002: 1002 in self._mouse,
            1003: 1003 in self._mouse,
            1004: self._focus_events,
            1006: self._mouse_sgr,
            1015: self._mouse_urxvt,
            2004: self._bracketed_paste,
            2026: self.synchronized,
            2027: s.graphemes,
        }.get(mode, False)

    def _decrqm(self, prefix: str, mode: int) -> None:
        if prefix == "?":
            if mode in _PRIVATE_MODES_REPORTED:
                state = 1 if self._mode_state(mode) else 2
            else:
                state = 0
            self._replies.append(f"\x1b[?{mode};{state}$y")
        elif not prefix:
            state = (1 if self._screen.insert_mode else 2) if mode == 4 else 0
            self._replies.append(f"\x1b[{mode};{state}$y")

    def _reset(self) -> None:
        """RIS: back to the power-on modes (the scrollback is kept)."""
        self._screen.hard_reset()
        self._cursor_visible = True
        self._app_cursor_keys = False
        self._bracketed_paste = False
        self._mouse.clear()
        self._mouse_sgr = self._mouse_urxvt = False
        self._focus_events = False
        self._sync_since = None
        self._kitty_flags = [0]
        self._title = ""
        self.cursor_shape = 0  # xterm resets DECSCUSR on RIS (tmux keeps it)
