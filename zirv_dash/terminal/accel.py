"""The optional C accelerator of the styled-run path (``_accel.c``).

The terminal model is whole in Python.  Where a C compiler was there at
install time, ``hatch_build.py`` built ``_accel`` beside this module, with the
digest of the C source it was built from; it is used only while that digest
still matches (an edited source is never shadowed by a stale build) and
``ZIRV_PURE_PYTHON`` is unset.  Otherwise the functions here are None
and ``styled.py`` (or ``scrollback.py``) runs the same steps in Python -- the C code performs only
lookups and writes the Python code performs the same way
(``tests/terminal/test_accel.py`` compares the two).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from types import ModuleType
from typing import Any

from .accel_build import build_is_current
from .attr import Attr
from .sgr_graph import CELL, ERASE, Node

PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def _load() -> ModuleType | None:
    if os.environ.get("ZIRV_PURE_PYTHON") or not build_is_current(PACKAGE_DIR):
        return None
    try:
        from . import _accel
    except ImportError:
        return None  # built for another interpreter: run as Python
    if (_accel.CELL, _accel.ERASE) != (CELL, ERASE):
        return None  # the node layout it was written for is not this one
    return _accel


_module = _load()
ENABLED = _module is not None
# The signatures are in _accel.pyi (draw_pieces takes thirteen arguments).
draw_pieces: Callable[..., tuple[int, int, int, Node]] | None = None
cells_of: Callable[[list[Node], list[str]], list[Attr]] | None = None
split_sgr: Callable[[str], list[str] | None] | None = None
make_runs: Callable[[list[str], list[Attr], int], list[tuple[str, Attr]]] | None = None
narrow_lines: Callable[..., tuple[list[Any], int]] | None = None
row_lines: Callable[..., list[Any]] | None = None
sgr_lines_end: Callable[[str, int, int, bytes], int] | None = None
walk_nodes: Callable[[Node, list[str]], list[Node] | None] | None = None
lines_end: Callable[[str, int, int, bytes], int] | None = None
styled_end: Callable[[str, int, bytes], int] | None = None
text_lines: Callable[..., tuple[list[Any], int]] | None = None
sgr_cells: Callable[[str, Node], tuple[str, list[Attr], Node] | None] | None = None
if _module is not None:
    draw_pieces = _module.draw_pieces
    cells_of = _module.cells_of
    split_sgr = _module.split_sgr
    make_runs = _module.make_runs
    narrow_lines = _module.narrow_lines
    row_lines = _module.row_lines
    sgr_lines_end = _module.sgr_lines_end
    walk_nodes = _module.walk_nodes
    lines_end = _module.lines_end
    styled_end = _module.styled_end
    text_lines = _module.text_lines
    sgr_cells = _module.sgr_cells
