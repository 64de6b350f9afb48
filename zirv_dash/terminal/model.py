"""TerminalModel: bytes in, screen state out.

The work is layered by concern: ``modes`` <- ``strings`` (OSC/DCS) <-
``dispatch`` (controls, ESC, CSI) <- ``parser`` (the tokenizer) <- this
module (the public API and change tracking); the grid is ``screen``.
"""

from __future__ import annotations

import codecs
import logging

from .attr import DEFAULT_ATTR, Attr
from .modes import SYNC_TIMEOUT
from .parser import Parser
from .screen import Run, Screen, make_runs, render_cells, render_runs
from .widths import strip_marks

_log = logging.getLogger(__name__)


class TerminalModel(Parser):
    """A terminal emulator for one pane: feed it the child's output bytes and
    read the screen, scrollback, modes and pending replies.

    Besides the API in the package docstring: ``keyboard_flags`` (kitty
    keyboard protocol flags the child pushed; 0 = legacy key encoding),
    ``cursor_shape`` (the DECSCUSR style ``CSI Ps SP q`` asked for: 0 the
    terminal's default, 1/2 blinking/steady block, 3/4 underline, 5/6 bar;
    back to 0 on RIS), ``cursor_visible`` (DECTCEM, ``CSI ? 25 h/l``),
    ``bells`` (BEL count),
    ``history_bytes`` (what the scrollback really holds in memory, kept
    within ``scrollback_bytes``), ``line_wrapped(line)`` (soft wraps, for
    selections),
    and ``default_fg_rgb``/``default_bg_rgb`` (what OSC 10/11 queries are
    told; set them from the UI theme).
    """

    def __init__(self, columns: int, rows: int, scrollback_bytes: int = 8 * 1024 * 1024) -> None:
        super().__init__(Screen(columns, rows, scrollback_bytes))
        # Invalid UTF-8 is dropped, not shown as U+FFFD: that is what tmux
        # does, byte for byte (the fidelity reference).
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
        self._version = 0
        self._clock = 0
        self._row_ver = [0] * self._screen.rows
        self._dirty: set[int] = set()
        self._sig: tuple[object, ...] = ()
        self._flush()

    # -- public properties ---------------------------------------------------------

    @property
    def columns(self) -> int:
        return self._screen.columns

    @property
    def rows(self) -> int:
        return self._screen.rows

    @property
    def cursor(self) -> tuple[int, int]:
        s = self._screen
        return (min(s.x, s.columns - 1), s.y)

    @property
    def alternate_screen(self) -> bool:
        return self._screen.alt

    @property
    def version(self) -> int:
        return self._version

    @property
    def history_size(self) -> int:
        return len(self._screen.history)

    @property
    def history_bytes(self) -> int:
        return self._screen.history_bytes

    # -- public methods ------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Consume output of the child. Never raises."""
        try:
            text = self._decoder.decode(data)
            if self._pending:
                text = self._pending + text
                self._pending = ""
            if text:
                self._parse(text)
        except Exception:  # a bug, never the input's fault: keep going
            _log.exception("terminal model failed on %d bytes", len(data))
            self._pending = ""
            self._str_kind = ""
            self._str_buf = []
        self._flush()

    def lines(self) -> list[str]:
        # DEC graphics cells carry a NUL marker (see screen.dec_cells); the
        # text shows their ASCII letter, exactly as tmux's capture-pane does.
        return [
            strip_marks("".join(row).replace("\0", "")).rstrip(" ") for row in self._screen.chars
        ]

    def resize(self, columns: int, rows: int) -> None:
        s = self._screen
        if columns == s.columns and rows == s.rows:
            return
        s.resize(columns, rows)
        self._row_ver = [self._clock] * s.rows
        self._dirty = {y for y in self._dirty if y < s.rows}
        self._flush()

    def take_replies(self) -> bytes:
        if not self._replies:
            return b""
        out = "".join(self._replies).encode()
        self._replies = []
        return out

    def take_dirty(self) -> set[int]:
        dirty = self._dirty
        self._dirty = set()
        return dirty

    def row_version(self, y: int) -> int:
        return self._row_ver[y]

    def row_runs(self, y: int) -> list[Run]:
        s = self._screen
        return render_runs(make_runs(render_cells(s.chars[y]), s.attrs[y], s.columns))

    def history_runs(self, i: int) -> list[Run]:
        return self._screen.history_runs(i)

    def history_text(self, i: int) -> str:
        return self._screen.history_text(i)

    def zones(self, line: int) -> set[int]:
        """The shell zones (OSC 133, ``attr.ZONES``) of the cells of ``line``,
        numbered as in :meth:`line_wrapped`."""
        s = self._screen
        hist = len(s.history)
        if 0 <= line < hist:
            attrs = s.history[line][1]
            if isinstance(attrs, Attr):
                return {attrs.zone}
            return {a.zone for a in attrs}
        row = line - hist
        if 0 <= row < s.rows:
            return {a.zone for a in s.attrs[row]}
        return set()

    def line_wrapped(self, line: int) -> bool:
        """Whether ``line`` continues on the next one (a soft wrap, made by
        autowrap).  Lines are numbered as in selections: the scrollback
        first (0 = oldest), then the screen rows.  Rows of the alternate
        screen never count as wrapped: full-screen programs place every row
        themselves."""
        s = self._screen
        hist = len(s.history)
        if 0 <= line < hist:
            return s.history[line][4]
        row = line - hist
        if 0 <= row < s.rows and not s.alt:
            return s.wrapped[row]
        return False

    # -- change tracking -------------------------------------------------------------

    def _flush(self) -> None:
        """Turn the rows the screen touched into dirty rows + row versions."""
        s = self._screen
        changed = False
        if s.all_touched:
            s.all_touched = False
            s.touched.clear()
            self._clock += 1
            self._row_ver = [self._clock] * s.rows
            self._dirty.update(range(s.rows))
            changed = True
        elif s.touched:
            self._clock += 1
            clock = self._clock
            rv = self._row_ver
            for y in s.touched:
                rv[y] = clock
            self._dirty |= s.touched
            s.touched.clear()
            changed = True
        sig = (
            s.x,
            s.y,
            self._cursor_visible,
            self.cursor_shape,
            self._title,
            s.alt,
            s.columns,
            s.rows,
        )
        if sig != self._sig:
            self._sig = sig
            changed = True
        if changed:
            self._version += 1


__all__ = ["DEFAULT_ATTR", "SYNC_TIMEOUT", "Attr", "TerminalModel"]
