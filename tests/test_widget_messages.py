"""Every widget message says which widget sent it (`control`), so a handler can
tell two of them apart with `@on(Widget.Message, "#id")`."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.message import Message

from widgets.hint_bar import HintBar
from widgets.key_hints import KeyHints
from widgets.palette_list import Entry, PaletteList
from widgets.sidebar import RosterRow, Sidebar
from zirv_dash.attention.states import PaneState


class Widgets(App[None]):
    def compose(self) -> ComposeResult:
        yield KeyHints([("esc", "close")], id="hints")
        yield HintBar([("esc", "close")], id="bar")
        yield PaletteList([Entry("help", "help", "dashboard", "every chord", "^A ?")], id="list")
        yield Sidebar(id="sidebar")


async def test_each_message_carries_the_widget_that_sent_it() -> None:
    seen: list[Message] = []
    app = Widgets()
    async with app.run_test(size=(80, 24), message_hook=seen.append) as pilot:
        sidebar = app.query_one(Sidebar)
        hints, bar, plist = (
            app.query_one(KeyHints),
            app.query_one(HintBar),
            app.query_one(PaletteList),
        )
        sidebar.update_rows([RosterRow("abcd1234", "orch", "demo", PaneState.IDLE)], 0)
        await pilot.click("#hints", offset=(1, 0))
        await pilot.click("#bar", offset=(1, 0))
        await pilot.click("#list", offset=(3, 1), times=2)
        await pilot.click("#sidebar", offset=(3, 1))
        await pilot.pause()
    sent = {
        type(m): m
        for m in seen
        if isinstance(
            m, KeyHints.Pressed | HintBar.Clicked | PaletteList.Activated | Sidebar.RowClicked
        )
    }
    assert sent[KeyHints.Pressed].control is hints
    assert sent[HintBar.Clicked].control is bar
    assert sent[PaletteList.Activated].control is plist
    row_clicked = sent[Sidebar.RowClicked]
    assert isinstance(row_clicked, Sidebar.RowClicked)
    assert row_clicked.control is sidebar and row_clicked.key == "abcd1234"
