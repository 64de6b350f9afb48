"""Controls, escape sequences and CSI sequences, acted upon as tmux 3.3 does.

`Dispatcher._csi` stays one long function on purpose: it is one dispatch on the
final byte that every CSI sequence goes through, and a call per sequence kind
costs measurable throughput (`bench/throughput.py`).
"""

from __future__ import annotations

import re

from .strings import StringSequences

_ESC_RE = re.compile(r"\x1b([ -/]*)([0-~])")
_ESC_PARTIAL_RE = re.compile(r"\x1b[ -/]*\Z")

MAX_PENDING = 4096  # longest incomplete CSI/ESC kept between feeds
_MAX_PARAM = 9999
_MAX_PARAMS = 24  # tmux's limits
_MAX_PARAM_CHARS = 64


def _params(s: str) -> list[int]:
    """Numeric CSI parameters; empty fields are 0, sub-parameters after ':'
    are dropped, values are capped so no sequence can trigger a huge loop."""
    if not s:
        return []
    out = []
    for field in s.split(";"):
        head = field.split(":", 1)[0]
        out.append(min(int(head), _MAX_PARAM) if head.isdigit() else 0)
    return out


class Dispatcher(StringSequences):
    """Performs C0 controls, ESC and CSI sequences on the screen and modes."""

    def _control(self, c: str) -> None:
        scr = self._screen
        scr.last_char = ""
        if c == "\n" or c == "\x0b" or c == "\x0c":
            scr.linefeed()
        elif c == "\r":
            scr.x = 0
        elif c == "\x08":
            scr.backspace()
        elif c == "\t":
            scr.tab()
        elif c == "\x07":
            self.bells += 1
        elif c == "\x0e":
            scr.shift = 1
            scr._update_charset()
        elif c == "\x0f":
            scr.shift = 0
            scr._update_charset()
        # NUL and the other C0 controls are ignored.

    def _escape(self, text: str, i: int) -> int:
        """Handle a non-CSI escape at ``text[i]``; returns the next index."""
        n = len(text)
        if i + 1 >= n:
            self._pending = text[i:]
            return n
        c1 = text[i + 1]
        if c1 in "]P_^Xk":  # OSC, DCS, APC, PM, SOS, screen's title (ESC k)
            self._str_kind = c1
            self._str_buf = []
            self._str_len = 0
            return self._string(text, i + 2)
        m = _ESC_RE.match(text, i)
        if m is None:
            if _ESC_PARTIAL_RE.match(text, i):
                if n - i <= MAX_PENDING:
                    self._pending = text[i:]
                return n
            return i + 1  # ESC followed by something that is no sequence
        inter, final = m.groups()
        scr = self._screen
        scr.last_char = ""
        if not inter:
            if final == "7":
                scr.save_cursor()
            elif final == "8":
                scr.restore_cursor()
            elif final == "D":
                scr.linefeed()
            elif final == "E":
                scr.next_line()
            elif final == "M":
                scr.reverse_index()
            elif final == "H":
                scr.set_tab_stop()
            elif final == "c":
                self._reset()
            # ESC = / ESC > (keypad modes), ESC \ (stray ST) ... are ignored.
        elif inter == "(" or inter == ")":
            scr.g[0 if inter == "(" else 1] = 1 if final == "0" else 0
            scr._update_charset()
        elif inter == "#" and final == "8":
            scr.alignment_display()
        return m.end()

    # -- CSI -------------------------------------------------------------------------

    def _csi(self, params: str, inter: str, final: str) -> None:
        prefix = ""
        if params and params[0] in "<=>?":
            prefix = params[0]
            params = params[1:]
        for ch in "<=>?":
            if ch in params:
                return  # malformed: private marker in the middle
        if len(params) >= _MAX_PARAM_CHARS or params.count(";") >= _MAX_PARAMS:
            return  # tmux discards sequences with too many parameters
        scr = self._screen
        last, scr.last_char = scr.last_char, ""  # any CSI ends what REP repeats
        args = _params(params)
        a0 = args[0] if args else 0
        if inter:
            if inter == "$" and final == "p":
                self._decrqm(prefix, a0)
            elif inter == " " and final == "q" and not prefix and a0 <= 6:
                self.cursor_shape = a0  # tmux ignores styles past 6
            return
        if prefix == "?":
            if final == "h" or final == "l":
                for mode in args:
                    self._private_mode(mode, final == "h")
            elif final == "J":
                if a0 != 3:  # selective erase: no protected cells, so same as ED
                    scr.erase_in_display(a0)
            elif final == "K":
                scr.erase_in_line(a0)
            elif final == "n" and a0 == 6:
                x, y = self._cpr()
                self._replies.append(f"\x1b[?{y};{x}R")
            elif final == "u":
                self._replies.append(f"\x1b[?{self._kitty_flags[-1]}u")
            return
        if prefix == ">":
            if final == "c" and a0 == 0:
                self._replies.append("\x1b[>84;0;0c")
            elif final == "q" and a0 == 0:
                self._replies.append("\x1bP>|zirv-dash(0.1.0)\x1b\\")
            elif final == "u":
                if len(self._kitty_flags) < 16:
                    self._kitty_flags.append(a0)
                else:
                    self._kitty_flags[-1] = a0
            return
        if prefix == "<":
            if final == "u":
                for _ in range(max(1, a0)):
                    if len(self._kitty_flags) > 1:
                        self._kitty_flags.pop()
            return
        if prefix == "=":
            if final == "u":
                mode = args[1] if len(args) > 1 else 1
                cur = self._kitty_flags[-1]
                if mode == 1:
                    cur = a0
                elif mode == 2:
                    cur |= a0
                elif mode == 3:
                    cur &= ~a0
                self._kitty_flags[-1] = cur
            return
        # plain CSI
        if final == "H" or final == "f":
            scr.cursor_position(a0, args[1] if len(args) > 1 else 1)
        elif final == "K":
            scr.erase_in_line(a0)
        elif final == "J":
            scr.erase_in_display(a0)
        elif final == "A":
            scr.cursor_up(a0)
        elif final == "B":
            scr.cursor_down(a0)
        elif final == "C":
            scr.cursor_forward(a0)
        elif final == "D":
            scr.cursor_back(a0)
        elif final == "G" or final == "`":
            scr.cursor_to_column(a0)
        elif final == "d":
            scr.cursor_to_line(a0)
        elif final == "E":
            scr.cursor_down(a0)
            scr.x = 0
        elif final == "F":
            scr.cursor_up(a0)
            scr.x = 0
        elif final == "X":
            scr.erase_characters(a0)
        elif final == "P":
            scr.delete_characters(a0)
        elif final == "@":
            scr.insert_characters(a0)
        elif final == "L":
            scr.insert_lines(a0)
        elif final == "M":
            scr.delete_lines(a0)
        elif final == "S":
            scr.scroll_up(max(1, a0))
        elif final == "T":
            scr.scroll_down(max(1, a0))
        elif final == "r":
            # An absent bottom means the last row; an explicit 0 means 1.
            fields = params.split(";")
            bottom = args[1] if len(fields) > 1 and fields[1] else scr.rows
            scr.set_margins(a0, bottom)
        elif final == "b":
            scr.repeat(last, max(1, a0))
        elif final == "Z":
            scr.back_tab(min(max(1, a0), scr.columns))
        elif final == "g":
            scr.clear_tab_stop(a0)
        elif final == "h" or final == "l":
            for mode in args:
                if mode == 4:
                    scr.insert_mode = final == "h"
        elif final == "s":
            if not args:
                scr.save_cursor()
        elif final == "u":
            if not args:
                scr.restore_cursor()
        elif final == "n":
            if a0 == 5:
                self._replies.append("\x1b[0n")
            elif a0 == 6:
                x, y = self._cpr()
                self._replies.append(f"\x1b[{y};{x}R")
        elif final == "c":
            if a0 == 0:
                self._replies.append("\x1b[?62;22c")
        elif final == "t":
            if a0 == 18:
                self._replies.append(f"\x1b[8;{scr.rows};{scr.columns}t")
        # Anything else is ignored -- including CHT, HPR, VPR and DECSTR,
        # which tmux does not implement either.

    def _cpr(self) -> tuple[int, int]:
        s = self._screen
        y = s.y - s.top if s.origin else s.y
        return min(s.x, s.columns - 1) + 1, y + 1
