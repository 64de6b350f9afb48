"""Bytes that rebuild a terminal model's visible state in a fresh model.

An attaching client creates a `TerminalModel` of the screen's size, feeds it
`repaint(server_model)`, then feeds every `Output` frame after the screen's
`seq`: its model then tracks the runtime's own. The repaint carries the styled
cells, the cursor (position, visibility, shape) and the modes that change how
keys and mouse are encoded (application cursor keys, bracketed paste, mouse
tracking and encoding, focus events, kitty keyboard flags), the alternate
screen and the title. Not carried (the model does not publish them): the
current SGR pen, the scroll region and origin/wrap modes; a child redraws those
with its next full frame.
"""

from __future__ import annotations

from zirv_dash.terminal import Attr, TerminalModel
from zirv_dash.terminal.links import LINK_END
from zirv_dash.terminal.sgr_text import sgr
from zirv_dash.terminal.widths import strip_marks


def _modes(model: TerminalModel) -> list[str]:
    out = []
    if model.app_cursor_keys:
        out.append("\x1b[?1h")
    if model.bracketed_paste:
        out.append("\x1b[?2004h")
    if model.mouse_tracking:
        out.append(f"\x1b[?{model.mouse_tracking}h")
    if model.mouse_encoding == "sgr":
        out.append("\x1b[?1006h")
    elif model.mouse_encoding == "urxvt":
        out.append("\x1b[?1015h")
    if model.focus_events:
        out.append("\x1b[?1004h")
    if model.keyboard_flags:
        out.append(f"\x1b[>{model.keyboard_flags}u")
    if model.cursor_shape:
        out.append(f"\x1b[{model.cursor_shape} q")
    if model.title:
        out.append(f"\x1b]2;{model.title}\x1b\\")
    return out


def repaint(model: TerminalModel) -> bytes:
    parts = ["\x1b[?1049h" if model.alternate_screen else "", "\x1b[H\x1b[2J"]
    if model.grapheme_clusters:
        parts.append("\x1b[?2027h")  # before the cells: it changes how they are drawn
    for y in range(model.rows):
        parts.append(f"\x1b[{y + 1};1H")
        last: Attr | None = None
        for text, attr in model.row_runs(y):
            if attr != last:
                if attr.link is not (last.link if last else None):
                    parts.append(attr.link.osc() if attr.link else LINK_END)
                parts.append(sgr(attr))
                last = attr
            parts.append(strip_marks(text))
        if last is not None and last.link is not None:
            parts.append(LINK_END)
    parts.append("\x1b[0m")
    parts += _modes(model)
    x, y = model.cursor
    parts.append(f"\x1b[{y + 1};{x + 1}H")
    if not model.cursor_visible:
        parts.append("\x1b[?25l")
    return "".join(parts).encode("utf-8", "surrogateescape")
