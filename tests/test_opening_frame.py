"""The opening frame draws what the UI's first frame will draw, cell for cell,
and leaves the terminal as it found it."""

from __future__ import annotations

import os
import pty
import select
import termios
from pathlib import Path

import pytest
from rich.color import Color, ColorSystem
from rich.style import Style

from screens.app import ZirvApp
from tests.apphelpers import dash_screen, make_app, wait_for
from widgets.footer_bar import FooterBar
from zirv_dash.cli import opening_frame
from zirv_dash.cli.opening_frame import OpeningFrame, Outline, color_system, render, xterm_256
from zirv_dash.keymap import load_preset
from zirv_dash.outer_terminal import OuterTerminal
from zirv_dash.terminal import TerminalModel
from zirv_dash.terminal.attr import Attr

PALETTE = [
    opening_frame.PANEL,
    opening_frame.FOREGROUND,
    opening_frame.DIM_ON_PANEL,
    opening_frame.BRAND,
    opening_frame.SIDEBAR,
    opening_frame.SIDEBAR_TITLE,
    opening_frame.BORDER,
    opening_frame.BOOST,
]
Cell = tuple[str, Attr]


def cells(model: TerminalModel, y: int) -> list[Cell]:
    out: list[Cell] = []
    for text, attr in model.row_runs(y):
        out.extend((char, attr) for char in text)
    return out


def ui_first_frame(app: ZirvApp, system: str, columns: int, rows: int) -> TerminalModel:
    """The dashboard's whole frame as the UI's console writes it to a terminal
    with `system` colours (a headless run has no terminal to write to)."""
    colors = ColorSystem.TRUECOLOR if system == "truecolor" else ColorSystem.EIGHT_BIT
    update = dash_screen(app)._compositor.render_full_update()
    model = TerminalModel(columns, rows)
    for y, strips in enumerate(update.strips):
        line = "".join(
            sgr(seg.style, colors) + seg.text
            for strip in strips
            for seg in strip
            if not seg.control
        )
        model.feed(f"\x1b[{y + 1};1H{line}".encode())
    return model


def sgr(style: Style | None, colors: ColorSystem) -> str:
    """The rendition the console sends for `style` in `colors` (its own render
    caches the codes of the first colour system it met)."""
    codes = ["0"]
    if style is not None:
        if style.bold:
            codes.append("1")
        if style.color is not None:
            codes.extend(style.color.downgrade(colors).get_ansi_codes(foreground=True))
        if style.bgcolor is not None:
            codes.extend(style.bgcolor.downgrade(colors).get_ansi_codes(foreground=False))
    return f"\x1b[{';'.join(codes)}m"


def outline_for(columns: int, rows: int) -> Outline:
    return Outline(
        columns=columns,
        rows=rows,
        sessions=1,
        sidebar_cols=28,
        footer_hint=opening_frame.footer_hint(load_preset("default")),
    )


def same(ours: Cell, theirs: Cell, *, text: bool) -> bool:
    (char, attr), (their_char, their_attr) = ours, theirs
    if not text:
        return attr.bg == their_attr.bg
    return (char, attr.fg, attr.bg, attr.bold) == (
        their_char,
        their_attr.fg,
        their_attr.bg,
        their_attr.bold,
    )


@pytest.mark.parametrize("system", ["truecolor", "256"])
@pytest.mark.parametrize("size", [(120, 40), (80, 24)])
async def test_every_cell_it_claims_is_the_uis(
    tmp_path: Path, system: str, size: tuple[int, int]
) -> None:
    columns, rows = size
    app = make_app(tmp_path, agent="demo", outer=OuterTerminal(color_system=system))
    async with app.run_test(size=size) as pilot:
        footer = dash_screen(app).query_one(FooterBar)
        await wait_for(pilot, lambda: any(s.startswith("pid ") for s in footer.segments))
        await pilot.pause()
        theirs = ui_first_frame(app, system, columns, rows)
    ours = TerminalModel(columns, rows)
    ours.feed(render(outline_for(columns, rows), system).encode())
    wide = columns >= opening_frame.SIDEBAR_MIN_COLUMNS
    sidebar = 28 if wide else 0
    brand = len("▌zirv · 1 session") if wide else len("▌zirv")
    hint = len(outline_for(columns, rows).footer_hint) + 1
    mismatches = []
    for y in range(rows):
        mine, real = cells(ours, y), cells(theirs, y)
        assert len(mine) == len(real) == columns
        for x in range(columns):
            if y == 0:
                if x >= brand:
                    continue  # the tip, the hints, or (narrow) the tabs: the UI's
                exact = True
            elif y == rows - 1:
                exact = x >= columns - hint
            elif x < sidebar:
                # The session's row is the UI's (state glyph, focus); the title,
                # the empty sidebar below the row and the border are the frame's.
                if y == 2 and x < sidebar - 1:
                    continue
                exact = True
            else:
                exact = False  # the pane header's text and the pane are the UI's
            if not same(mine[x], real[x], text=exact):
                mismatches.append((x, y, mine[x], real[x]))
    assert not mismatches, "\n".join(map(repr, mismatches[:6]))


def test_256_colours_are_the_consoles() -> None:
    """The 256-colour index of every colour drawn is the one the UI's console
    would downgrade it to."""
    for rgb in [*PALETTE, (0, 0, 0), (255, 255, 255), (12, 200, 90), (128, 128, 140)]:
        want = Color.from_rgb(*rgb).downgrade(ColorSystem.EIGHT_BIT).number
        assert xterm_256(rgb) == want, rgb


@pytest.mark.parametrize(
    ("probed", "env", "want"),
    [
        ("truecolor", {}, "truecolor"),
        ("256", {"COLORTERM": "truecolor"}, "256"),
        (None, {"COLORTERM": "truecolor"}, "truecolor"),
        (None, {"TERM": "xterm-256color"}, "256"),
        (None, {"TERM": "xterm"}, None),
        (None, {"TEXTUAL_COLOR_SYSTEM": "truecolor", "TERM": "xterm"}, "truecolor"),
        ("truecolor", {"NO_COLOR": "1"}, None),
        ("standard", {}, None),
    ],
)
def test_draws_only_in_the_uis_colour_system(
    probed: str | None, env: dict[str, str], want: str | None
) -> None:
    assert color_system(probed, env) == want


def test_hint_follows_the_keymap() -> None:
    keymap = load_preset("default")
    assert opening_frame.footer_hint(keymap) == "^A ? help · ^A q quit"
    assert opening_frame.footer_hint(keymap, hosted=True).endswith("detach")


def _pty_pair() -> tuple[int, int]:
    leader, follower = pty.openpty()
    return leader, follower


def _drain(leader: int) -> bytes:
    """Everything written to the terminal so far (a pty hands it over in chunks)."""
    got = b""
    while select.select([leader], [], [], 0.5)[0]:
        chunk = os.read(leader, 65536)
        if not chunk:
            break
        got += chunk
    return got


def test_typed_keys_wait_unechoed_and_modes_come_back() -> None:
    """While the frame is up nothing typed is echoed; handed over, the terminal
    has its own modes again and the keys are still there to read."""
    leader, follower = _pty_pair()
    try:
        before = termios.tcgetattr(follower)
        frame = OpeningFrame.show(outline_for(80, 24), "truecolor", follower, follower)
        assert frame is not None
        drawn = _drain(leader)
        assert drawn.startswith(opening_frame.ENTER.encode())
        assert b"zirv" in drawn
        os.write(leader, b"hello")
        assert termios.tcgetattr(follower)[3] & termios.ECHO == 0
        # The keys reached the line discipline (readable: no line editing now).
        assert select.select([follower], [], [], 10)[0]
        frame.hand_over()
        assert termios.tcgetattr(follower) == before
        # What the UI does next: its own raw mode; the keys are there to read.
        raw = list(before)
        raw[3] = before[3] & ~(termios.ECHO | termios.ICANON)
        termios.tcsetattr(follower, termios.TCSANOW, raw)
        assert select.select([follower], [], [], 10)[0]
        assert os.read(follower, 100) == b"hello"
        frame.close()
        os.set_blocking(leader, False)
        # Nothing was echoed, and a frame handed over is the UI's to take down.
        with pytest.raises(BlockingIOError):
            os.read(leader, 100)
    finally:
        os.close(leader)
        os.close(follower)


def test_a_frame_never_handed_over_is_taken_down() -> None:
    leader, follower = _pty_pair()
    try:
        before = termios.tcgetattr(follower)
        frame = OpeningFrame.show(outline_for(80, 24), "256", follower, follower)
        assert frame is not None
        _drain(leader)
        frame.close()
        assert _drain(leader).endswith(opening_frame.LEAVE.encode())
        assert termios.tcgetattr(follower) == before
    finally:
        os.close(leader)
        os.close(follower)


def test_nothing_drawn_without_a_colour_system_or_a_terminal(tmp_path: Path) -> None:
    assert OpeningFrame.show(outline_for(80, 24), None) is None
    with open(tmp_path / "plain", "w+b") as not_a_tty:
        fd = not_a_tty.fileno()
        assert OpeningFrame.show(outline_for(80, 24), "truecolor", fd, fd) is None
        assert os.path.getsize(tmp_path / "plain") == 0
