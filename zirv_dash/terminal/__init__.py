"""The terminal emulator behind every pane.

``TerminalModel`` turns a child's output bytes into a screen (text, styled runs,
cursor, modes, scrollback) and collects the answers to the child's terminal
queries.  It never imports a UI toolkit.

Reference behaviour is tmux 3.3 (what ``tmux capture-pane -p`` shows for the
same bytes at the same size); ``tests/terminal`` replays recorded real
programs against committed tmux screens.

How a widget uses it::

    m.feed(chunk)                      # never raises
    pty.write(m.take_replies())        # answers to DA/CPR/OSC 10/11/... queries
    if not m.synchronized:             # DEC 2026: hold while a frame is built
        for y in m.take_dirty():       # rows changed since the last call
            key = (y, m.row_version(y))            # cache key for a rendered row
            runs = m.row_runs(y)       # [(text, Attr)] covering exactly m.columns

A run's cell width is ``cell_width(text)``: a wide character counts 2 and a
cell may hold a cluster (a character with combining marks, or an emoji
sequence joined by U+200D), which counts as its first character.
``lines()`` is the plain text, exactly as tmux captures it (so it can differ
from the rendered runs where tmux keeps half of a wide character, and DEC
line-drawing cells read as their ASCII letters there but render as glyphs).

``COMPILED`` tells whether the modules in use were compiled with mypyc (see
``compiled``); the pure-Python ones behave identically, only slower.
"""

import os as _os

from .compiled import build_dir as _compiled_dir

# A compiled build that matches the sources is searched first (see compiled.py).
_built = _compiled_dir(_os.path.dirname(__file__))
if _built is not None:
    __path__.insert(0, _built)

from . import model as _model  # noqa: E402
from .attr import DEFAULT_ATTR, Attr  # noqa: E402
from .model import TerminalModel  # noqa: E402
from .widths import cell_width  # noqa: E402

COMPILED = not (_model.__file__ or "").endswith(".py")

__all__ = ["COMPILED", "DEFAULT_ATTR", "Attr", "TerminalModel", "cell_width"]
