"""Clusters drawn in exactly the cells the model gives them, whatever the
outer terminal's idea of their width.

Terminals disagree on the width of emoji sequences: a ZWJ family is one
2-cell glyph to kitty and Rich but three wide characters to xterm; a skin
tone is a separate wide character to tmux 3.3a (and so to the model) but
joins its emoji in kitty and in Rich; VS16 widens a heart in some and not
in others; regional indicators pair up or not. Left alone, every such
cluster moves the rest of its row at the glass.

So a *risky* cell (one holding U+200D, U+FE0F, a skin tone modifier or a
regional indicator, or marked 2 cells wide by mode 2027: current Unicode's
width, which an older terminal may not know) is handed to Rich and Textual as a token of exactly its
model width -- private-use characters of plane 16, one cell each, which no
terminal program is expected to print (any it does print is tokenized too)
-- and turned back into the cluster only where Textual writes the frame:
the cells are blanked, the cluster is drawn from their first, and the
cursor is put back and moved exactly the model's width on (DECSC, DECRC,
CUF), so whatever width the terminal draws it with, the next cell starts
where the model says.
"""

from __future__ import annotations

import re

from zirv_dash.terminal.widths import WIDE_END, WIDE_START, char_width, lead_width, strip_marks

TOKEN_FIRST = 0x100000
CONTINUATION = "\U0010fffd"
MAX_TOKENS = 0xFFFD
_RISKY = re.compile(
    "[\x01\u200d\ufe0f\U0001f3fb-\U0001f3ff\U0001f1e6-\U0001f1ff\U00100000-\U0010fffd]"
)
_TOKEN = re.compile("[\U00100000-\U0010fffc]\U0010fffd*")
_index: dict[str, int] = {}
_clusters: list[str] = []
GENERATION = [0]
"""Bumped when the token table starts again: a strip cached with older tokens
is stale (the terminal view keys its rows on it)."""


def _token(cluster: str, width: int) -> str:
    k = _index.get(cluster)
    if k is None:
        if len(_clusters) >= MAX_TOKENS:
            _index.clear()
            _clusters.clear()
            GENERATION[0] += 1
        k = _index[cluster] = len(_clusters)
        _clusters.append(cluster)
    return chr(TOKEN_FIRST + k) + CONTINUATION * (width - 1)


def model_cells(text: str) -> list[str]:
    """``text`` (a run's text) split into the model's cells: a character, its
    zero-width followers, and a character after U+200D (tmux's joining)."""
    cells: list[str] = []
    joined = False
    marked = False
    for c in text:
        if marked:
            cells[-1] += c
            marked = c != WIDE_END
        elif c == WIDE_START:
            cells.append(c)  # a 2-cell cluster (mode 2027), up to its end mark
            marked = True
        elif joined or (cells and c != "\u200d" and char_width(c) == 0):
            cells[-1] += c
            joined = False
        elif c == "\u200d":
            if cells:
                cells[-1] += c
                joined = True
        else:
            cells.append(c)
    return cells


def tokenize(text: str) -> str:
    """``text`` with each risky cell as a token of its model width."""
    if text.isascii() or not _RISKY.search(text):
        return text
    out = []
    for cell in model_cells(text):
        if _RISKY.search(cell):
            width = max(1, lead_width(cell))
            out.append(_token(strip_marks(cell), width))
        else:
            out.append(cell)
    return "".join(out)


def _draw(match: re.Match[str]) -> str:
    k = ord(match.group()[0]) - TOKEN_FIRST
    cluster = _clusters[k] if k < len(_clusters) else " "
    n = len(match.group())
    return f"\x1b7{' ' * n}\x1b8{cluster}\x1b8\x1b[{n}C"


def detokenize(text: str) -> str:
    """What is written for ``text``: each token as its cluster, exactly placed."""
    if text.isascii():
        return text
    # A token cut in two (an overlay's edge in the middle of it): the part
    # without its first character is blank cells.
    return _TOKEN.sub(_draw, text).replace(CONTINUATION, " ")
