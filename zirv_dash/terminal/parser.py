"""The tokenizer: decoded text in, screen operations out.

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

import re

from .attr import _SGR_CACHE, DEFAULT_ATTR, FROM_DEFAULT, Attr, apply_sgr
from .dispatch import MAX_PENDING, Dispatcher
from .screen import Screen, dec_cells
from .widths import narrow_class

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


class Parser(Dispatcher):
    """Splits text into printable runs and sequences and draws/dispatches them."""

    def __init__(self, screen: Screen) -> None:
        super().__init__(screen)
        # A "styled run": single-width text mixed with plain SGR and CUP
        # sequences, the bulk of what agents, highlighters and TUIs print.
        # It is split in C and drawn with slice assignments, not token by token.
        self._styled = _styled_run_re()

    def _draw_styled(self, seg: str) -> None:
        """Draw a run of single-width text interleaved with SGR sequences and
        cursor positionings (CUP) -- what agents, highlighters and TUIs print
        most -- splitting it in C and drawing each stretch between two CUPs
        with slice assignments."""
        scr = self._screen
        # [text, sgr, cup, el, text, sgr, cup, el, ..., text]; typed so that
        # a compiled build tests and compares plain strings.
        parts: list[str | None] = _RUN_SPLIT(seg)
        attr = scr.attr
        first = parts[0] or ""
        texts: list[str] = [first] if first else []
        cell_attrs: list[Attr] = [attr] * len(first)
        cache_get = _SGR_CACHE.get
        from_default = FROM_DEFAULT.get
        rows, cols = scr.rows, scr.columns
        for k in range(1, len(parts), 4):
            p = parts[k]
            if p is None:
                # CUP or EL: draw what came before first.
                if texts:
                    self._draw_cells_at_cursor(texts, cell_attrs, attr)
                    texts.clear()  # neither list is kept by the draw
                    cell_attrs.clear()
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
            elif attr is DEFAULT_ATTR:
                hit = from_default(p)
                attr = hit if hit is not None else apply_sgr(attr, p)
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
                        if n - i <= MAX_PENDING:
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
                    if scr.y == scr.bottom:  # scr.index(), inlined
                        scr.scroll_up(1)
                    elif scr.y < scr.rows - 1:
                        scr.y += 1
                    i += 2
                    if i < n and text[i] != "\x1b" and scr.lines_fast_path():
                        i = self._lines(text, i)
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

    def _lines(self, text: str, i: int) -> int:
        """Complete lines of plain text at ``i`` (a log scrolling by), fed in
        one go; returns the index after them."""
        cols = self._screen.columns
        pattern = _LINES_RE.get(cols)
        if pattern is None:
            if len(_LINES_RE) > 16:
                _LINES_RE.clear()
            pattern = _LINES_RE[cols] = re.compile(f"(?:[{narrow_class()}]{{0,{cols}}}\r\n)+")
        m = pattern.match(text, i)
        if m is None:
            return i
        lines = m.group().split("\r\n")
        lines.pop()  # what follows the last CR LF: not part of the match
        self._screen.feed_lines(lines)
        return m.end()


# Runs of whole lines of single-width text, per screen width.
_LINES_RE: dict[int, re.Pattern[str]] = {}


def _styled_run_re() -> re.Pattern[str]:
    global _STYLED_RE
    if _STYLED_RE is None:
        cls = narrow_class()
        _STYLED_RE = re.compile(
            f"(?:[{cls}]+|\x1b\\[[0-9;:]*m|\x1b\\[\\d{{0,4}};?\\d{{0,4}}H|\x1b\\[[012]?K)+"
        )
    return _STYLED_RE


_STYLED_RE: re.Pattern[str] | None = None
