"""Lines of text whose long lines wrap with a hanging indent."""

from __future__ import annotations

from rich._wrap import divide_line
from rich.text import Text
from textual.geometry import Size
from textual.widget import Widget


def hang(line: Text, width: int, indent: int) -> list[Text]:
    """`line` wrapped at word breaks to `width`, its continuation rows indented by
    `indent` (under the column they continue), never back at the left edge."""
    width = max(1, width)
    if line.cell_len <= width:
        return [line]
    first = divide_line(line.plain, width)
    if not first:
        return [line]
    rows = [line[: first[0]]]
    rest = line[first[0] :]
    room = max(8, width - indent)
    offsets = divide_line(rest.plain, room)
    for piece in rest.divide(offsets):
        piece.rstrip()
        rows.append(Text(" " * min(indent, width - 1)) + piece)
    for row in rows:
        row.rstrip()
    return rows


class HangingText(Widget):
    """Lines of text whose long lines wrap with a hanging indent; `source_line(y)`
    says which original line a row belongs to (for mouse hits)."""

    DEFAULT_CSS = """
    HangingText { height: auto; }
    """

    def __init__(self, text: Text, indent: int, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = text
        self.indent = indent
        self._rows: list[int] = []

    def update(self, text: Text) -> None:
        self.text = text
        self.refresh(layout=True)

    def _layout_rows(self, width: int) -> tuple[list[Text], list[int]]:
        rows: list[Text] = []
        sources: list[int] = []
        for index, line in enumerate(self.text.split("\n", allow_blank=True)):
            for row in hang(line, width, self.indent):
                rows.append(row)
                sources.append(index)
        return rows, sources

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(self._layout_rows(width)[0])

    def render(self) -> Text:
        rows, self._rows = self._layout_rows(self.content_size.width)
        return Text("\n").join(rows)

    def source_line(self, y: int) -> int | None:
        if not self._rows:
            self._rows = self._layout_rows(self.content_size.width)[1]
        return self._rows[y] if 0 <= y < len(self._rows) else None
