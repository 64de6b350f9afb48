"""The character grid: cells, cursor, scroll region, scrollback, alternate screen.

Why not ``pyte.Screen``'s buffer?  pyte keeps a ``dict`` of ``dict`` of ``Char``
namedtuples and creates one ``Char`` per drawn character; drawing a 200-column
line costs hundreds of Python-level operations.  Here a row is two parallel
lists -- ``chars[y][x]`` (a ``str``: one character plus any combining marks,
``" "`` when blank, ``""`` for the right half of a wide character) and
``attrs[y][x]`` (an interned :class:`Attr`) -- so a run of printable text is
written with two slice assignments that run at C speed, scrolling is a list
``del``/insert of row references, and rendering a row groups identical ``Attr``
references.  The method names follow pyte's ``Screen`` event vocabulary
(``index``, ``reverse_index``, ``erase_in_line``, ``insert_characters``...),
and the semantics follow tmux 3.3 -- quirks included, found by differential
testing -- which is the reference the fidelity tests compare against.

Cursor column ``x == columns`` means "pending wrap": the last column was just
written and the next printable character wraps first (like pyte and tmux).
``wrapped[y]`` records that row ``y`` ran on into row ``y + 1`` (tmux's
``GRID_LINE_WRAPPED``): backspace uses it to go back over a wrap, and a width
change re-wraps such lines (``_reflow``), screen and recent scrollback alike
(within fixed budgets, so a resize costs a bounded amount; wrapped rows keep
their flags, so a later widening joins them again).
"""

from __future__ import annotations

from .attr import DEFAULT_ATTR
from .cells import Run, dec_cells, make_runs, render_cells, render_runs
from .resize import ResizeOps
from .scrollback import HistLine, line_cost


class Screen(ResizeOps):
    """Grid state and the operations escape sequences perform on it.

    The operations are layered by concern, each module building on the one
    before: ``scrollback`` <- ``grid`` (state, cursor motion) <- ``scroll``
    <- ``erase`` <- ``draw`` <- ``resize`` (and the alternate screen).
    """

    def hard_reset(self) -> None:
        """RIS as tmux does it: modes, margins, tabs, charsets, attributes
        and the saved cursor are reset and the screen is cleared (into the
        scrollback, like ED 2); the alternate screen is *not* left."""
        self.attr = DEFAULT_ATTR
        self.graphemes = False
        self.erase_in_display(2)
        self.x = self.y = 0
        self.top, self.bottom = 0, self.rows - 1
        self.autowrap = True
        self.insert_mode = False
        self.origin = False
        self.tabstops = set(range(8, self.columns, 8))
        self.g = [0, 0]
        self.shift = 0
        self.graphics = False
        self.saved = None
        self.last_char = ""
        self.zwj = False


__all__ = [
    "HistLine",
    "Run",
    "Screen",
    "dec_cells",
    "line_cost",
    "make_runs",
    "render_cells",
    "render_runs",
]
