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

``COMPILED`` tells whether the styled-run path runs with its C accelerator
(see ``accel``); without it the model behaves identically, only slower.
"""

from .accel import ENABLED as COMPILED
from .attr import DEFAULT_ATTR, Attr
from .model import TerminalModel
from .widths import cell_width

__all__ = ["COMPILED", "DEFAULT_ATTR", "Attr", "TerminalModel", "cell_width"]
