"""A one-line status fitted to its width by whole ` · `-separated pieces."""

from __future__ import annotations

from rich.text import Text
from textual.widget import Widget


def fit_pieces(text: str, width: int) -> str:
    """`mode · a · b · copy · esc` cut to `width` by whole pieces: the ones after
    the mode go first (moving is guessable), the last ones (how to copy, how to
    leave) stay; never a piece cut mid-word."""
    pieces = text.split(" · ")
    while len(pieces) > 3 and len(" · ".join(pieces)) > width:
        del pieces[1]
    return " · ".join(pieces)


class StatusLine(Widget):
    """Copy mode's one-line status, fitted to its width by whole pieces."""

    def __init__(self, text: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.text = text

    def set_text(self, text: str) -> None:
        if text != self.text:
            self.text = text
            self.refresh()

    def render(self) -> Text:
        return Text(fit_pieces(self.text, self.content_size.width or len(self.text)))
