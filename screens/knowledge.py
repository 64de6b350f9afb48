"""Knowledge overlay (`Ctrl+A k`, palette "knowledge"): the repo's `.zavet/` records.

A list (decisions, specs, notes; a malformed record shows `⚠` and its error), a
detail pane for the highlighted record, and a search box that filters on every
word. Read-only: every string from a record is shown as plain `rich.Text`
(never parsed as markup) with control characters replaced, and nothing in a
record is ever run. Loading happens on a thread worker (a large `.zavet/`
must not stall the panes).
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import Input, Static
from textual.widgets.option_list import Option

from screens.dialog import DialogScreen
from widgets.key_hints import KeyHints
from widgets.pick_list import PickList
from zirv_dash.repo import knowledge
from zirv_dash.repo.knowledge import Knowledge, Record

DIM = Style(dim=True)
WARN = Style(color="yellow", bold=True)
STATUS_STYLES = {
    "accepted": Style(color="green"),
    "proposed": Style(color="cyan"),
    "superseded": Style(dim=True),
    "rejected": Style(color="red"),
}


def plain(text: str) -> str:
    """`text` safe to draw: tabs as spaces, other control characters as `�`."""
    text = text.replace("\t", "    ")
    return "".join(
        ch if ch == "\n" or not (ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0) else "\ufffd"
        for ch in text
    )


def row_text(record: Record) -> Text:
    out = Text(no_wrap=True, overflow="ellipsis")
    if record.error:
        out.append("⚠ ", WARN)
        out.append(plain(str(record.path)))
        return out
    out.append(f"{plain(record.id)}  ", Style(bold=True))
    if record.status:
        out.append(f"{plain(record.status)}  ", STATUS_STYLES.get(record.status.lower(), DIM))
    out.append(plain(record.title))
    return out


def detail_text(record: Record) -> Text:
    out = Text()

    def field(key: str, value: str) -> None:
        out.append(f"{key:<11}", DIM)
        out.append(plain(value) + "\n")

    field("file", str(record.path))
    field("kind", record.kind)
    if record.error:
        out.append("error      ", DIM)
        out.append(plain(record.error) + "\n", WARN)
    for key, value in record.meta.items():
        shown = ", ".join(value) if isinstance(value, list) else value
        field(key, shown or "—")
    if record.body:
        out.append("\n")
        out.append(plain(record.body))
    return out


class KnowledgeScreen(DialogScreen[None]):
    DEFAULT_CSS = """
    KnowledgeScreen .dialog {
        width: 95%;
        max-width: 140;
        height: 85%;
    }
    KnowledgeScreen #knowledge-query {
        margin-bottom: 1;
    }
    KnowledgeScreen #knowledge-panes {
        height: 1fr;
    }
    KnowledgeScreen #knowledge-list {
        width: 2fr;
        height: 1fr;
        max-height: 100%;
        /* One line per record: the detail pane has the whole title. */
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    KnowledgeScreen #knowledge-detail-scroll {
        width: 3fr;
        height: 1fr;
        max-height: 100%;
        padding: 0 0 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "close", show=False),
        Binding("up", "move(-1)", show=False, priority=True),
        Binding("down", "move(1)", show=False, priority=True),
        Binding("pageup", "detail(-10)", show=False, priority=True),
        Binding("pagedown", "detail(10)", show=False, priority=True),
    ]

    def __init__(self, repo: str) -> None:
        super().__init__()
        self.repo = repo
        self.knowledge: Knowledge | None = None
        self.shown: list[Record] = []

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog") as dialog:
            dialog.border_title = "knowledge · .zavet"
            query = Input(placeholder="search records", id="knowledge-query")
            query.cursor_blink = False  # steady cursor (and stable snapshots)
            yield query
            with Horizontal(id="knowledge-panes"):
                yield PickList(id="knowledge-list")
                with VerticalScroll(id="knowledge-detail-scroll"):
                    yield Static(Text("loading…", DIM), id="knowledge-detail")
            yield KeyHints(
                [("↑/↓", "move"), ("pgup/pgdn", "scroll"), ("esc", "close")],
                classes="dialog-footer",
                id="knowledge-footer",
            )

    def on_mount(self) -> None:
        self.query_one(Input).focus()
        self._load()

    @work(thread=True, exclusive=True, group="knowledge")
    def _load(self) -> None:
        loaded = knowledge.load(Path(self.repo))
        self.app.call_from_thread(self._loaded, loaded)

    def _loaded(self, loaded: Knowledge) -> None:
        self.knowledge = loaded
        self._filter(self.query_one(Input).value)

    def _filter(self, query: str) -> None:
        if self.knowledge is None:
            return
        self.shown = self.knowledge.search(query)
        picks = self.query_one(PickList)
        picks.clear_options()
        picks.add_options([Option(row_text(r)) for r in self.shown])
        self._footer_note(query)
        if self.shown:
            picks.highlighted = 0
        self._show_detail()

    def _footer_note(self, query: str) -> None:
        assert self.knowledge is not None
        total = len(self.knowledge.records)
        broken = sum(1 for r in self.knowledge.records if r.error)
        note = f"{len(self.shown)} of {total}" if query.strip() else f"{total} records"
        if broken:
            note += f" · {broken} malformed"
        for problem in self.knowledge.problems:
            note += f" · {plain(problem)}"
        self.query_one(KeyHints).set_hints(
            [("↑/↓", "move"), ("pgup/pgdn", "scroll"), ("esc", "close")], note
        )

    def _show_detail(self) -> None:
        detail = self.query_one("#knowledge-detail", Static)
        index = self.query_one(PickList).highlighted
        if self.knowledge is not None and not self.knowledge.records:
            detail.update(
                Text(
                    f"no records: this repository has no {knowledge.ZAVET_DIR}/ folder with "
                    "decisions/*.md or specs/*.md",
                    DIM,
                )
            )
        elif index is None or index >= len(self.shown):
            detail.update(Text("no record matches", DIM))
        else:
            detail.update(detail_text(self.shown[index]))
        self.query_one("#knowledge-detail-scroll", VerticalScroll).scroll_home(animate=False)

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        self._filter(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()  # nothing to run: the overlay only reads

    def on_option_list_option_highlighted(self, event: PickList.OptionHighlighted) -> None:
        event.stop()
        self._show_detail()

    def on_option_list_option_selected(self, event: PickList.OptionSelected) -> None:
        event.stop()

    def action_move(self, delta: int) -> None:
        picks = self.query_one(PickList)
        if picks.option_count:
            current = picks.highlighted or 0
            picks.highlighted = max(0, min(picks.option_count - 1, current + delta))

    def action_detail(self, lines: int) -> None:
        scroll = self.query_one("#knowledge-detail-scroll", VerticalScroll)
        scroll.scroll_relative(y=lines, animate=False)

    def action_close(self) -> None:
        self.dismiss(None)
