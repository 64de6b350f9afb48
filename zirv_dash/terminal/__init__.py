"""The terminal emulator behind every pane.

``TerminalModel`` turns a child's output bytes into a screen (text, styled runs,
cursor, modes, scrollback) and collects the answers to the child's terminal
queries.  It never imports a UI toolkit.
"""

from .attr import DEFAULT_ATTR, Attr
from .model import TerminalModel
from .widths import cell_width

__all__ = ["DEFAULT_ATTR", "Attr", "TerminalModel", "cell_width"]
