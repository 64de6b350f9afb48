# The C accelerator of the styled-run loop (_accel.c); see accel.py.
from typing import Any

CELL: str
ERASE: str

def draw_pieces(
    pieces: list[str],
    k: int,
    node: dict[str, Any],
    cups: dict[str, tuple[int, int]],
    chars: list[list[str]],
    attrs: list[list[Any]],
    wrapped: list[bool],
    touched: set[int],
    y: int,
    x: int,
    cols: int,
    lim: int,
    wrap_at: int,
    /,
) -> tuple[int, int, int, dict[str, Any]]: ...
def cells_of(nodes: list[dict[str, Any]], texts: list[str], /) -> list[Any]: ...
def split_sgr(block: str, /) -> list[str] | None: ...
def make_runs(chars: list[str], attrs: list[Any], end: int, /) -> list[tuple[str, Any]]: ...
def narrow_lines(
    lines: list[str],
    cells: list[Any],
    starts: list[int],
    count: int,
    cols: int,
    default: Any,
    overhead: int,
    empty: Any,
    /,
) -> tuple[list[Any], int]: ...
def row_lines(
    chars: list[list[str]],
    attrs: list[list[Any]],
    wrapped: list[bool],
    default: Any,
    overhead: int,
    empty: Any,
    /,
) -> list[Any]: ...
def sgr_lines_end(text: str, i: int, stop: int, table: bytes, /) -> int: ...
def walk_nodes(start: dict[str, Any], params: list[str], /) -> list[dict[str, Any]] | None: ...
def lines_end(text: str, i: int, cols: int, table: bytes, /) -> int: ...
def text_lines(
    lines: list[str], default: Any, overhead: int, empty: Any, /
) -> tuple[list[Any], int]: ...
def styled_end(text: str, i: int, table: bytes, /) -> int: ...
def sgr_cells(
    block: str, start: dict[str, Any], /
) -> tuple[str, list[Any], dict[str, Any]] | None: ...
