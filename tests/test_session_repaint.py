"""Attach restores the styled screen: a client model fed the repaint and then
the output stream tracks the runtime's own model of a real child."""

from __future__ import annotations

import asyncio
import base64
from pathlib import Path

from tests.sessionrig import connected, serving, short_state
from zirv_dash.session.repaint import repaint, sgr
from zirv_dash.terminal import Attr, TerminalModel

__all__ = ["short_state"]

STYLED = (
    r"printf '\033[1;31mred\033[0m plain \033[38;2;1;2;3;48;5;200mtrue\033[0m \344\270\255\n';"
    r"printf '\033[?1h\033[?2004h\033]2;a title\007\033[4 q'; echo ready; exec cat"
)


def styled(model: TerminalModel) -> list[list[tuple[str, Attr]]]:
    return [model.row_runs(y) for y in range(model.rows)]


def test_sgr_sets_a_rendition_from_any_previous_one() -> None:
    model = TerminalModel(20, 2)
    attr = Attr(fg=9, bg="#102030", bold=True, reverse=True)
    model.feed(b"\x1b[3;4;35m" + sgr(attr).encode() + b"x")
    assert model.row_runs(0)[0] == ("x", attr)


def test_repaint_rebuilds_cells_cursor_and_modes() -> None:
    source = TerminalModel(30, 5)
    source.feed(b"\x1b[?1049h\x1b[7mrev\x1b[0m\r\n\x1b[?1002h\x1b[?1006h\x1b[2;7H\x1b[?25l")
    copy = TerminalModel(30, 5)
    copy.feed(repaint(source))
    assert styled(copy) == styled(source) and copy.cursor == source.cursor
    for mode in ("alternate_screen", "mouse_tracking", "mouse_encoding", "cursor_visible"):
        assert getattr(copy, mode) == getattr(source, mode), mode


async def test_attach_with_repaint_then_stream_tracks_a_real_child(short_state: Path) -> None:
    async with serving() as server, connected(server) as client:
        started = await client.call(
            "session.start", {"argv": ["/bin/sh", "-c", STYLED], "columns": 40, "rows": 8}
        )
        sid = started["session"]["id"]
        await client.call("session.wait", {"session": sid, "text": "ready"})  # all printed
        got = await client.call(
            "session.attach", {"session": sid, "mode": "controller", "repaint": True}
        )
        screen = got["screen"]
        mine = TerminalModel(screen["columns"], screen["rows"])
        mine.feed(base64.b64decode(screen["repaint"]))
        assert mine.app_cursor_keys and mine.bracketed_paste and mine.title == "a title"
        await client.call("session.send_input", {"session": sid, "text": "more\r"})
        await client.call("session.wait", {"session": sid, "text": "more"})
        final = await client.call("session.screen", {"session": sid, "repaint": True})
        async with asyncio.timeout(10):
            while True:  # every output up to the final screen's seq
                out = await client.outputs.get()
                assert out.seq > screen["seq"]
                mine.feed(out.data)
                if out.seq >= final["seq"]:
                    break
        truth = TerminalModel(final["columns"], final["rows"])
        truth.feed(base64.b64decode(final["repaint"]))
        assert mine.lines() == final["lines"]
        assert styled(mine) == styled(truth)
        assert list(mine.cursor) == final["cursor"]
        red = truth.row_runs(0)[0]
        assert red == ("red", Attr(fg=1, bold=True))
