"""Selections over a pane's scrollback + screen: text, words, lines, search.

UI-agnostic. A point is ``(line, col)`` in *absolute* lines: scrollback lines
are ``0 .. history_size - 1`` (oldest first) and the screen's rows follow, so a
point keeps naming the same text while output scrolls the screen into the
history. Spans are ``(start, end)`` with ``start`` inclusive and ``end``
exclusive, the semantics of vt100's ``contents_between``: the first line from
the start column, the last line up to the end column, whole lines between.

Wide characters occupy two cells; the right half is ``""``. Span ends are
snapped outwards so a wide character is never cut in half, and the copied text
contains it once. A line that continues on the next one (a soft wrap) is joined
without a newline; trailing whitespace is trimmed at every hard line end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from zirv_dash.terminal import TerminalModel
from zirv_dash.terminal.widths import strip_marks

Point = tuple[int, int]
Span = tuple[Point, Point]

# Characters that belong to a word besides letters and digits: double-click on
# a path, URL, flag or identifier selects all of it.
WORD_CHARS = frozenset("_-./~:@%+#=?&*$!,")
TRAILING = " \t"


class LineSource(Protocol):
    """Cells of absolute lines (scrollback then screen)."""

    @property
    def line_count(self) -> int: ...

    @property
    def columns(self) -> int: ...

    def cells(self, line: int) -> Sequence[str]: ...

    def wrapped(self, line: int) -> bool: ...


class ModelLines:
    """A :class:`LineSource` over a live :class:`TerminalModel`.

    The model has no public per-cell accessor yet, so this reads its screen's
    cell lists directly (cheap: no run grouping). Soft wraps: if the model
    tracks them (``line_wrapped(line)``) that answer is used; otherwise a line
    whose last cell is written counts as continuing on the next line, unless
    that cell is a box-drawing or block character (a rule or border drawn to
    the margin) or the row belongs to an alternate (full-screen) screen.
    """

    def __init__(self, model: TerminalModel) -> None:
        self.model = model
        self._screen = model._screen  # noqa: SLF001 - see the class docstring

    @property
    def history_size(self) -> int:
        return len(self._screen.history)

    @property
    def line_count(self) -> int:
        return len(self._screen.history) + self._screen.rows

    @property
    def columns(self) -> int:
        return self._screen.columns

    def cells(self, line: int) -> Sequence[str]:
        screen = self._screen
        hist = len(screen.history)
        if line < 0:
            return ()
        if line < hist:
            body = screen.history[line][0]
            cells: Sequence[str] = body if isinstance(body, tuple) else list(body)
            if len(cells) > screen.columns:
                cells = cells[: screen.columns]
            return cells
        row = line - hist
        if row >= screen.rows:
            return ()
        return screen.chars[row]

    def wrapped(self, line: int) -> bool:
        probe: Callable[[int], bool] | None = getattr(self.model, "line_wrapped", None)
        if probe is not None:
            return bool(probe(line))
        if line + 1 >= self.line_count:
            return False
        if line >= len(self._screen.history) and self.model.alternate_screen:
            return False  # full-screen apps place every row themselves
        cells = self.cells(line)
        if len(cells) < self.columns:
            return False
        last = cells[self.columns - 1]
        # A full row of text continues; one ending in a box-drawing or block
        # character is a border or rule drawn to the margin.
        return last != " " and not ("\u2500" <= last[:1] <= "\u259f")


# -- spans ---------------------------------------------------------------------------


def ordered(a: Point, b: Point) -> tuple[Point, Point]:
    return (a, b) if a <= b else (b, a)


def _cell(src: LineSource, line: int, col: int) -> str:
    cells = src.cells(line)
    return cells[col] if 0 <= col < len(cells) else " "


def snap(src: LineSource, span: Span) -> Span:
    """Widen a span so neither end splits a wide character."""
    (l0, c0), (l1, c1) = span
    if c0 > 0 and _cell(src, l0, c0) == "":
        c0 -= 1
    if 0 < c1 < src.columns and _cell(src, l1, c1) == "":
        c1 += 1
    return (l0, c0), (l1, c1)


def drag_span(src: LineSource, anchor: Point, pointer: Point) -> Span:
    """The span a drag from the `anchor` cell to the `pointer` cell selects:
    both cells included, whichever way the drag went."""
    start, end = ordered(anchor, pointer)
    return snap(src, (start, (end[0], end[1] + 1)))


def text_between(src: LineSource, start: Point, end: Point) -> str:
    """The text of the span ``[start, end)``, as the user expects to paste it."""
    if end <= start:
        return ""
    (l0, c0), (l1, c1) = snap(src, (start, end))
    last = min(l1, src.line_count - 1)
    out: list[str] = []
    for line in range(max(0, l0), last + 1):
        cells = src.cells(line)
        a = c0 if line == l0 else 0
        b = c1 if line == l1 else src.columns
        piece = "".join(cells[a:b])
        if line < l1 and src.wrapped(line):
            out.append(piece)
        else:
            out.append(piece.rstrip(TRAILING))
            if line < l1:
                out.append("\n")
    return "".join(out)


def span_text(src: LineSource, span: Span) -> str:
    # (without the marks of 2-cell clusters, mode 2027: see terminal.widths)
    return strip_marks(text_between(src, span[0], span[1]))


def columns_in_line(span: Span | None, line: int, columns: int) -> tuple[int, int] | None:
    """The ``[c0, c1)`` columns of `line` a span covers, or None."""
    if span is None:
        return None
    (l0, c0), (l1, c1) = span
    if line < l0 or line > l1:
        return None
    a = c0 if line == l0 else 0
    b = c1 if line == l1 else columns
    return (a, b) if b > a else None


# -- words and lines -----------------------------------------------------------------


def _kind(c: str) -> int:
    """0 blank, 1 word, 2 anything else (each such cell is its own word)."""
    if c in (" ", "\t"):
        return 0
    head = c[:1]
    if head.isalnum() or head in WORD_CHARS:
        return 1
    return 2


def _kind_at(src: LineSource, line: int, col: int) -> int:
    cells = src.cells(line)
    while 0 < col < len(cells) and cells[col] == "":
        col -= 1  # the right half of a wide character is that character
    return _kind(cells[col] if 0 <= col < len(cells) else " ")


def _step(src: LineSource, point: Point, forward: bool) -> Point | None:
    """The neighbouring cell, crossing soft wraps only."""
    line, col = point
    if forward:
        if col + 1 < src.columns:
            return (line, col + 1)
        return (line + 1, 0) if src.wrapped(line) else None
    if col > 0:
        return (line, col - 1)
    if line > 0 and src.wrapped(line - 1):
        return (line - 1, src.columns - 1)
    return None


def word_at(src: LineSource, point: Point) -> Span:
    """The word under a cell (double-click): a run of word characters, a run
    of blanks, or a single other character. Follows soft wraps."""
    line, col = point
    col = max(0, min(col, src.columns - 1))
    kind = _kind_at(src, line, col)
    start = end = (line, col)
    if kind != 2:
        while (prev := _step(src, start, False)) is not None and _kind_at(src, *prev) == kind:
            start = prev
        while (nxt := _step(src, end, True)) is not None and _kind_at(src, *nxt) == kind:
            end = nxt
    return snap(src, (start, (end[0], end[1] + 1)))


def line_at(src: LineSource, line: int) -> Span:
    """The whole logical line through `line` (triple-click), wraps included."""
    first = line
    while first > 0 and src.wrapped(first - 1):
        first -= 1
    last = line
    while last + 1 < src.line_count and src.wrapped(last):
        last += 1
    return ((first, 0), (last, src.columns))


# -- search --------------------------------------------------------------------------


def _line_text(src: LineSource, line: int) -> tuple[str, list[int]]:
    """A line's text and, for each character, the column of its cell."""
    text: list[str] = []
    cols: list[int] = []
    for col, cell in enumerate(src.cells(line)):
        for ch in cell:
            text.append(ch)
            cols.append(col)
    return "".join(text), cols


def _folded(query: str) -> tuple[str, bool]:
    """Smart case: a query with no capitals matches case-insensitively."""
    return (query.lower(), True) if query == query.lower() else (query, False)


def matches_in_line(src: LineSource, line: int, query: str) -> list[tuple[int, int]]:
    """Every ``[c0, c1)`` column range of `line` that matches `query`."""
    if not query:
        return []
    needle, fold = _folded(query)
    text, cols = _line_text(src, line)
    hay = text.lower() if fold else text
    if len(hay) != len(text):  # lower() changed lengths: match on the original
        hay, needle = text, query
    out: list[tuple[int, int]] = []
    i = hay.find(needle)
    while i >= 0:
        c0 = cols[i]
        last = cols[i + len(needle) - 1]
        out.append((c0, last + 1))
        i = hay.find(needle, i + max(1, len(needle)))
    return out


def search(
    src: LineSource, query: str, origin: Point, *, forward: bool, wrap: bool = True
) -> Span | None:
    """The next match strictly after (or before) `origin`, wrapping around the
    whole buffer once. Matches do not span lines."""
    if not query:
        return None
    count = src.line_count
    line0, col0 = origin
    order: list[int]
    if forward:
        order = list(range(line0, count))
        if wrap:
            order += list(range(0, line0 + 1))
    else:
        order = list(range(line0, -1, -1))
        if wrap:
            order += list(range(count - 1, line0 - 1, -1))
    needle, fold = _folded(query)
    for n, line in enumerate(order):
        text = "".join(src.cells(line))
        if needle not in (text.lower() if fold else text):
            continue
        hits = matches_in_line(src, line, query)
        first_pass = n < (count - line0 if forward else line0 + 1)
        if forward:
            for c0, c1 in hits:
                if line != line0 or not first_pass or c0 > col0:
                    return ((line, c0), (line, c1))
        else:
            for c0, c1 in reversed(hits):
                if line != line0 or not first_pass or c0 < col0:
                    return ((line, c0), (line, c1))
    return None
