"""TerminalModel: bytes in, screen state out.

The parser here replaces ``pyte.Stream`` on the hot path.  pyte's stream feeds
escape sequences through a generator one character at a time, forwards only a
subset of private sequences (and raises ``TypeError`` on some, e.g.
``CSI > 4;2 m``), and has no notion of DCS/APC strings or of replies.  This
tokenizer matches whole sequences with compiled regular expressions, draws
runs of single-width text in one call, and routes every other sequence to a
handler that ignores whatever it does not understand.  Incomplete sequences at
the end of a chunk are kept and completed by the next :meth:`feed`.
"""

from __future__ import annotations

import codecs
import logging
import re
import time

from .attr import _SGR_CACHE, DEFAULT_ATTR, Attr, apply_sgr
from .screen import Run, Screen, dec_cells, make_runs, render_cells, render_runs
from .widths import narrow_class

_log = logging.getLogger(__name__)

# Splits a styled run into [text, sgr, cup, el, text, sgr, cup, el, ..., text]:
# each sequence is an SGR (its parameters; the others None), a CUP (its
# "row;col") or an EL (its mode).
_RUN_SPLIT = re.compile(r"\x1b\[(?:([0-9;:]*)m|(\d{0,4};?\d{0,4})H|([012]?)K)").split
_CUP_RE = re.compile(r"\d{0,4};\d{0,4}")
_CSI_RE = re.compile(r"\x1b\[([0-?]*)([ -/]*)([@-~])")
# The same, tolerating C0 controls (not ESC, CAN, SUB) anywhere inside.
# Both classes take C0, so the quantifiers are possessive: with plain ones
# a failed match (no final byte) retries every split of the run, and 64 KB
# of controls after "ESC [" took ~50 s.  No final byte can be given back to
# the classes, so possessive matching accepts exactly the same sequences.
_C0 = r"\x00-\x17\x19\x1c-\x1f"
_CSI_C0_RE = re.compile(rf"\x1b\[[0-?{_C0}]*+[ -/{_C0}]*+[@-~]")
_CSI_PREFIX_C0_RE = re.compile(rf"\x1b\[[0-?{_C0}]*+[ -/{_C0}]*+")
_C0_FIND = re.compile(f"[{_C0}]").findall
_C0_DROP = re.compile(f"[{_C0}]").sub
_ESC_RE = re.compile(r"\x1b([ -/]*)([0-~])")
_ESC_PARTIAL_RE = re.compile(r"\x1b[ -/]*\Z")
# Terminators of string sequences, as tmux reads them: OSC may end with BEL,
# DCS/APC/PM/SOS only with ST; ESC (possibly the start of ST) and CAN/SUB
# end any of them.  U+009C is not ST here: in UTF-8 it is two bytes that
# tmux does not take for a terminator.
_OSC_END_RE = re.compile(r"[\x07\x18\x1a\x1b]")
_DCS_END_RE = re.compile(r"[\x18\x1a\x1b]")
_TITLE_JUNK_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")


_MAX_PENDING = 4096  # longest incomplete CSI/ESC kept between feeds
_MAX_STRING = 65536  # longest OSC/DCS payload kept (the rest is ignored)
_MAX_PARAM = 9999
_MAX_PARAMS = 24  # tmux's limits
_MAX_PARAM_CHARS = 64
SYNC_TIMEOUT = 1.0

_MOUSE_MODES = (1000, 1002, 1003)
_PRIVATE_MODES_REPORTED = frozenset(
    {1, 6, 7, 25, 47, 1047, 1049, 1000, 1002, 1003, 1004, 1006, 1015, 2004, 2026}
)


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


class TerminalModel:
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
        self._screen = Screen(columns, rows, scrollback_bytes)
        # Invalid UTF-8 is dropped, not shown as U+FFFD: that is what tmux
        # does, byte for byte (the fidelity reference).
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
        # A "styled run": single-width text mixed with plain SGR and CUP
        # sequences, the bulk of what agents, highlighters and TUIs print.
        # It is split in C and drawn with slice assignments, not token by token.
        self._styled = _styled_run_re()
        self._pending = ""
        self._str_kind = ""  # "]" OSC, "P" DCS, "_" APC, "^" PM, "X" SOS, "k" title
        self._str_buf: list[str] = []
        self._str_len = 0
        self._replies: list[str] = []
        # modes
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
        # colours reported to OSC 10/11 queries (dark theme defaults)
        self.default_fg_rgb = (0xD0, 0xD0, 0xD0)
        self.default_bg_rgb = (0x00, 0x00, 0x00)
        # change tracking
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
    def cursor_visible(self) -> bool:
        return self._cursor_visible

    @property
    def title(self) -> str:
        return self._title

    @property
    def alternate_screen(self) -> bool:
        return self._screen.alt

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
        return ["".join(row).replace("\0", "").rstrip(" ") for row in self._screen.chars]

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

    # -- parser ----------------------------------------------------------------------

    def _draw_styled(self, seg: str) -> None:
        """Draw a run of single-width text interleaved with SGR sequences and
        cursor positionings (CUP) -- what agents, highlighters and TUIs print
        most -- splitting it in C and drawing each stretch between two CUPs
        with slice assignments."""
        scr = self._screen
        parts = _RUN_SPLIT(seg)  # [text, sgr, cup, text, sgr, cup, ..., text]
        attr = scr.attr
        first = parts[0]
        texts: list[str] = [first] if first else []
        cell_attrs: list[Attr] = [attr] * len(first)
        cache_get = _SGR_CACHE.get
        rows, cols = scr.rows, scr.columns
        for k in range(1, len(parts), 4):
            p = parts[k]
            if p is None:
                # CUP or EL: draw what came before first.
                if texts:
                    self._draw_cells_at_cursor(texts, cell_attrs, attr)
                    texts = []
                    cell_attrs = []
                cup = parts[k + 1]
                if cup is None:
                    el = parts[k + 2]
                    scr.attr = attr  # the erase colour (BCE)
                    scr.erase_in_line(int(el) if el else 0)
                    scr.last_char = ""
                    t = parts[k + 3]
                    if t:
                        texts.append(t)
                        cell_attrs += [attr] * len(t)
                    continue
                r, _, c = cup.partition(";")
                if scr.origin:
                    scr.cursor_position(int(r) if r else 1, int(c) if c else 1)
                else:
                    y = int(r) - 1 if r else 0
                    x = int(c) - 1 if c else 0
                    scr.y = 0 if y < 0 else (y if y < rows else rows - 1)
                    scr.x = 0 if x < 0 else (x if x < cols else cols - 1)
            elif p == "0" or not p:
                attr = DEFAULT_ATTR
            else:
                got = cache_get((id(attr), p))
                if got is not None and got[0] is attr:
                    attr = got[1]
                else:
                    attr = apply_sgr(attr, p)
            t = parts[k + 3]
            if t:
                texts.append(t)
                cell_attrs += [attr] * len(t)
        if texts:
            self._draw_cells_at_cursor(texts, cell_attrs, attr)
        scr.attr = attr
        if not parts[-1]:
            scr.last_char = ""  # ends with a sequence: REP has nothing to repeat

    def _draw_cells_at_cursor(self, texts: list[str], cell_attrs: list[Attr], attr: Attr) -> None:
        """Draw single-width text (in pieces) with one attribute per cell."""
        scr = self._screen
        body = texts[0] if len(texts) == 1 else "".join(texts)
        x = scr.x
        end = x + len(body)
        if end <= scr.columns and not (scr.graphics or scr.insert_mode or scr.zwj):
            # Fits on the line: two slice assignments.
            y = scr.y
            row = scr.chars[y]
            if row[x] == "" or (end < scr.columns and row[end] == ""):
                scr.heal(y, x, end, body[0] < "\x7f")
            row[x:end] = body
            scr.attrs[y][x:end] = cell_attrs
            scr.touched.add(y)
            scr.x = end if end < scr.columns or scr.autowrap else end - 1
            scr.last_char = body[-1]
            return
        scr.attr = attr
        if scr.graphics:
            scr.draw_cells(dec_cells(body), cell_attrs)
        else:
            scr.draw_cells(body, cell_attrs)

    def _parse(self, text: str) -> None:
        scr = self._screen
        styled_match = self._styled.match
        csi_match = _CSI_RE.match
        n = len(text)
        i = 0
        if self._str_kind:
            i = self._string(text, 0)
        while i < n:
            m = styled_match(text, i)
            if m is not None:
                j = m.end()
                seg = text[i:j]
                if "\x1b" in seg:
                    self._draw_styled(seg)
                elif scr.graphics:
                    scr.draw_cells(dec_cells(seg), [scr.attr] * len(seg))
                else:
                    scr.draw_narrow(seg)
                i = j
                if i >= n:
                    break
            c = text[i]
            if c == "\x1b":
                m = csi_match(text, i)
                if m is not None:
                    i = m.end()
                    params, inter, final = m.groups()
                    if final == "m" and not inter:
                        # Private forms (CSI > 4;2 m: xterm modifyOtherKeys)
                        # are not renditions: ignored.
                        if not params or params[0] not in "<=>?":
                            scr.attr = apply_sgr(scr.attr, params)
                        scr.last_char = ""
                    elif final == "H" and not inter and _CUP_RE.fullmatch(params):
                        # CUP "row;col", the most common cursor motion.
                        r, _, c = params.partition(";")
                        row = int(r) if r else 1
                        col = int(c) if c else 1
                        if scr.origin:
                            scr.cursor_position(row, col)
                        else:
                            scr.y = min(max(row, 1), scr.rows) - 1
                            scr.x = min(max(col, 1), scr.columns) - 1
                        scr.last_char = ""
                    else:
                        self._csi(params, inter, final)
                    continue
                if text.startswith("\x1b[", i):
                    # Incomplete or malformed CSI.  C0 controls inside a CSI
                    # are executed and the sequence goes on (ECMA-48, xterm,
                    # tmux): match it with the controls allowed, run them,
                    # then the sequence without them.
                    m = _CSI_C0_RE.match(text, i)
                    if m is not None:
                        whole = m.group()
                        for ch in _C0_FIND(whole):
                            self._control(ch)
                        m = csi_match(_C0_DROP("", whole))
                        i += len(whole)
                        if m is not None:
                            self._csi(*m.groups())
                        continue
                    pm = _CSI_PREFIX_C0_RE.match(text, i)
                    assert pm is not None
                    k = pm.end()
                    if k >= n:
                        if n - i <= _MAX_PENDING:
                            self._pending = text[i:]
                            return
                        i += 2  # absurdly long: give up on it as a sequence
                        continue
                    if text[k] in "\x18\x1a":
                        i = k + 1  # CAN/SUB cancel the sequence
                    else:
                        i = k  # abandon the sequence; reprocess this char
                    continue
                i = self._escape(text, i)
                continue
            if c == "\r":
                # CR, and the CR LF pair every line of cooked output ends with
                scr.x = 0
                scr.last_char = ""
                if i + 1 < n and text[i + 1] == "\n":
                    scr.index()
                    i += 2
                else:
                    i += 1
                continue
            o = ord(c)
            if o < 0x20:
                self._control(c)
                i += 1
            elif o < 0xA0 and o >= 0x7F:
                i += 1  # DEL and C1 code points are not printable
            else:
                scr.draw_char(c)
                i += 1

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
                if n - i <= _MAX_PENDING:
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

    def _string(self, text: str, i: int) -> int:
        """Consume the body of an OSC/DCS/APC/PM/SOS string starting at ``i``."""
        kind = self._str_kind
        n = len(text)
        end_re = _OSC_END_RE if kind == "]" else _DCS_END_RE
        m = end_re.search(text, i)
        if m is None:
            self._keep_string(text[i:])
            return n
        k = m.start()
        t = text[k]
        if t == "\x1b":
            if k + 1 >= n:
                self._keep_string(text[i:k])
                self._pending = "\x1b"
                return n
            if text[k + 1] != "\\":
                self._str_kind = ""  # ESC + anything else aborts the string
                return k
            nxt = k + 2
            terminator = "\x1b\\"
        elif t in "\x18\x1a":
            self._str_kind = ""
            return k + 1
        else:
            nxt = k + 1
            terminator = "\x07" if t == "\x07" else "\x1b\\"
        self._keep_string(text[i:k])
        self._screen.last_char = ""
        body = "".join(self._str_buf)
        self._str_buf = []
        self._str_kind = ""
        if kind == "]":
            self._osc(body, terminator)
        return nxt

    def _keep_string(self, part: str) -> None:
        if self._str_len < _MAX_STRING:
            self._str_buf.append(part[: _MAX_STRING - self._str_len])
            self._str_len += len(part)

    # -- OSC -------------------------------------------------------------------------

    def _osc(self, body: str, st: str) -> None:
        code, _, arg = body.partition(";")
        if code == "0" or code == "2":
            self._title = _TITLE_JUNK_RE.sub("", arg)
        elif code in ("10", "11", "12"):
            # Colour queries; "10;?;?" asks for fg and then bg.
            idx = int(code)
            for part in arg.split(";"):
                if part == "?" and idx <= 12:
                    rgb = self.default_bg_rgb if idx == 11 else self.default_fg_rgb
                    self._replies.append(f"\x1b]{idx};{_xrgb(rgb)}{st}")
                idx += 1
        elif code == "4":
            fields = arg.split(";")
            for k in range(0, len(fields) - 1, 2):
                if fields[k + 1] == "?" and fields[k].isdigit() and int(fields[k]) < 256:
                    p = int(fields[k])
                    self._replies.append(f"\x1b]4;{p};{_xrgb(_palette_rgb(p))}{st}")
        # OSC 1 (icon), 7 (cwd), 8 (hyperlinks: the text is drawn normally),
        # 52 (clipboard), 133 (prompt marks) and everything else: ignored.

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


def _styled_run_re() -> re.Pattern[str]:
    global _STYLED_RE
    if _STYLED_RE is None:
        cls = narrow_class()
        _STYLED_RE = re.compile(
            f"(?:[{cls}]+|\x1b\\[[0-9;:]*m|\x1b\\[\\d{{0,4}};?\\d{{0,4}}H|\x1b\\[[012]?K)+"
        )
    return _STYLED_RE


_STYLED_RE: re.Pattern[str] | None = None


def _xrgb(rgb: tuple[int, int, int]) -> str:
    r, g, b = rgb
    return f"rgb:{r:02x}{r:02x}/{g:02x}{g:02x}/{b:02x}{b:02x}"


_ANSI16 = [
    (0x00, 0x00, 0x00),
    (0xCD, 0x00, 0x00),
    (0x00, 0xCD, 0x00),
    (0xCD, 0xCD, 0x00),
    (0x00, 0x00, 0xEE),
    (0xCD, 0x00, 0xCD),
    (0x00, 0xCD, 0xCD),
    (0xE5, 0xE5, 0xE5),
    (0x7F, 0x7F, 0x7F),
    (0xFF, 0x00, 0x00),
    (0x00, 0xFF, 0x00),
    (0xFF, 0xFF, 0x00),
    (0x5C, 0x5C, 0xFF),
    (0xFF, 0x00, 0xFF),
    (0x00, 0xFF, 0xFF),
    (0xFF, 0xFF, 0xFF),
]


def _palette_rgb(p: int) -> tuple[int, int, int]:
    """xterm's default 256-colour palette."""
    if p < 16:
        return _ANSI16[p]
    if p < 232:
        p -= 16
        steps = (0, 95, 135, 175, 215, 255)
        return steps[p // 36], steps[(p // 6) % 6], steps[p % 6]
    v = 8 + 10 * (p - 232)
    return v, v, v


__all__ = ["TerminalModel", "Attr", "DEFAULT_ATTR"]
