"""The tokenizer: decoded text in, screen operations out.

The parser here replaces ``pyte.Stream`` on the hot path.  pyte's stream feeds
escape sequences through a generator one character at a time, forwards only a
subset of private sequences (and raises ``TypeError`` on some, e.g.
``CSI > 4;2 m``), and has no notion of DCS/APC strings or of replies.  This
tokenizer matches whole sequences with compiled regular expressions, draws
runs of single-width text in one call, and routes every other sequence to a
handler that ignores whatever it does not understand.  Incomplete sequences at
the end of a chunk are kept and completed by the next :meth:`feed`.

`_parse` stays one long function on purpose: it is the one hot loop every byte
goes through, and a call per step costs measurable throughput
(`bench/throughput.py`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .accel import lines_end, styled_end
from .attr import apply_sgr
from .dispatch import MAX_PENDING
from .screen import Screen, dec_cells
from .styled import StyledRuns
from .widths import narrow_class, narrow_table

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


class Parser(StyledRuns):
    """Splits text into printable runs and sequences and draws/dispatches them."""

    def __init__(self, screen: Screen) -> None:
        super().__init__(screen)
        # A "styled run": single-width text mixed with plain SGR and CUP
        # sequences, the bulk of what agents, highlighters and TUIs print.
        # It is split in C and drawn with slice assignments, not token by token.
        self._styled = _styled_run_re()

    def _runs_match(self) -> Callable[[str, int], re.Match[str] | None]:
        """The styled-run matcher for the screen's mode: under mode 2027 some
        characters take another width, and its runs leave them out."""
        return (_styled_run_re(True) if self._screen.graphemes else self._styled).match

    def _runs_table(self) -> bytes:
        """The same, as the table the C scans test characters against."""
        return narrow_table(self._screen.graphemes) if styled_end is not None else b""

    def _parse(self, text: str) -> None:
        scr = self._screen
        styled_match = self._runs_match()
        narrow = self._runs_table()
        csi_match = _CSI_RE.match
        n = len(text)
        i = 0
        sgr_tried = 0  # highlighted lines were matched up to here (_sgr_lines)
        if self._str_kind:
            i = self._string(text, 0)
        while i < n:
            # Where the styled run at i ends: in C where it was built (the
            # same end, one forward scan), else the expression.
            if styled_end is not None:
                j = styled_end(text, i, narrow)
            else:
                m = styled_match(text, i)
                j = i if m is None else m.end()
            if j > i:
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
                        if final in "hl":  # a mode (2027 among them) may change widths
                            styled_match = self._runs_match()
                            narrow = self._runs_table()
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
                            styled_match = self._runs_match()
                            narrow = self._runs_table()
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
                    if i < n and (i >= sgr_tried or text[i] != "\x1b") and scr.lines_fast_path():
                        j = self._lines(text, i) if text[i] != "\x1b" else i
                        if j == i and i >= sgr_tried:
                            j, sgr_tried = self._sgr_lines(text, i)
                        i = j
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
        graphemes = self._screen.graphemes
        if lines_end is not None:
            end = lines_end(text, i, cols, narrow_table(graphemes))  # in C, the same end
        else:
            pattern = _LINES_RE.get((cols, graphemes))
            if pattern is None:
                if len(_LINES_RE) > 16:
                    _LINES_RE.clear()
                cls = narrow_class(graphemes)
                pattern = _LINES_RE[cols, graphemes] = re.compile(f"(?:[{cls}]{{0,{cols}}}\r\n)+")
            m = pattern.match(text, i)
            end = -1 if m is None else m.end()
        if end < 0:
            return i
        lines = text[i:end].split("\r\n")
        lines.pop()  # what follows the last CR LF: not part of the match
        self._screen.feed_lines(lines)
        return end


# Runs of whole lines of single-width text, per screen width.
_LINES_RE: dict[tuple[int, bool], re.Pattern[str]] = {}


def _styled_run_re(current_unicode: bool = False) -> re.Pattern[str]:
    found = _STYLED_RE.get(current_unicode)
    if found is None:
        cls = narrow_class(current_unicode)
        # Text, then (sequence, text) pairs, every repetition possessive:
        # no sequence starts with a character of the class, so nothing could
        # be given back anyway, and sre keeps no backtracking state (half
        # the cost of an alternation of the four under one "+").  It may
        # match nothing; the caller skips such a match.  A sequence is any
        # "ESC [ <[0-9;:]*> m|H|K" (an SGR, and CUP and EL forms tested when
        # first met, see StyledRuns._draw_styled): a third cheaper to match
        # than the three forms written out.
        found = re.compile(f"[{cls}]*+(?:\x1b\\[[0-9;:]*+[mHK][{cls}]*+)*+")
        _STYLED_RE[current_unicode] = found
    return found


_STYLED_RE: dict[bool, re.Pattern[str]] = {}
