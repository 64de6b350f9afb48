"""Mail overlay (`Ctrl+A m`): browse, consume and compose repo mail.

Browse lists the whole repo mailbox (like `zirv ctx inbox`), oldest first, one
row per message: `{sender}: {first line}`, the sender named as the operator sees
it (a pane's label and short id, `operator` for this dashboard's own mail); the
highlighted message's body is shown below. Enter consumes it (moves it to
`read/`). `c` composes a message to `any` or to one live pane.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.widgets import Label, OptionList, Static
from textual.widgets.option_list import Option

from screens.dialog import DialogScreen
from widgets.draft_area import DraftArea
from widgets.key_hints import KeyHints
from widgets.nav_pick_list import NavPickList
from widgets.target_list import TargetList
from zirv_dash import paths
from zirv_dash.config.layers import MailSettings
from zirv_dash.mail import mailbox as mail

__all__ = ["MailScreen", "MailTarget", "TargetList", "recipient_text", "sender_text"]

log = logging.getLogger("zirv.mail")

ROW_PREVIEW = 60
PREVIEW_LINES = 6


@dataclass(frozen=True)
class MailTarget:
    """One live pane mail can be addressed to."""

    short: str
    agent: str
    session: str
    title: str = ""
    """The pane's label in the sidebar (e.g. `wrk demo`), when the caller knows it."""

    @property
    def label(self) -> str:
        return f"pane {self.short} ({self.title or self.agent})"


def _pane_named(short: str | None, targets: list[MailTarget]) -> str | None:
    for target in targets:
        if short and target.short == short:
            return f"{target.title or target.agent} · {target.short}"
    return None


def sender_text(message: mail.Message, targets: list[MailTarget], own_session: str = "") -> str:
    """Who sent `message`, in the names the operator sees: a pane's label and
    short id, `operator` for this dashboard's own mail (its internal id matches
    no pane), else the sender's agent/short as recorded."""
    own = paths.short_id(own_session) if own_session else ""
    if own and message.from_short == own:
        return "operator"
    pane = _pane_named(message.from_short, targets)
    if pane is None:
        return f"{message.from_agent}/{message.from_short}"
    if message.from_agent == "zirv":  # system mail: a report about that pane
        return f"zirv, for {pane}"
    return pane


def recipient_text(message: mail.Message, targets: list[MailTarget]) -> str:
    if not message.to_session:
        return message.to
    return _pane_named(message.to_short, targets) or f"session {message.to_short}"


def row_text(
    message: mail.Message, targets: list[MailTarget] | None = None, own_session: str = ""
) -> Text:
    lines = mail.display_body(message.body).strip().splitlines()
    first = lines[0].strip() if lines else ""
    sender = sender_text(message, targets or [], own_session)
    return Text(f"{sender}: {first[:ROW_PREVIEW]}", no_wrap=True, overflow="ellipsis")


DRAFT_HINTS = [("⏎", "send"), ("shift/alt+⏎", "newline"), ("tab", "pick target"),
               ("esc", "cancel")]  # fmt: skip
TARGET_HINTS = [("⏎", "pick target, then write"), ("↑↓", "move"), ("tab", "to draft"),
                ("esc", "cancel")]  # fmt: skip
"""The footer says what Enter does where the focus is: send from the draft,
pick the addressee from the list."""


class MailScreen(DialogScreen[None]):
    DEFAULT_CSS = """
    MailScreen #mail-list {
        max-height: 10;
        /* One row per message: a long first line ends in "…", never wraps. */
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    MailScreen #mail-preview {
        height: auto;
        max-height: 7;
        margin-top: 1;
        color: $text-muted;
    }
    MailScreen #mail-compose {
        display: none;
        height: auto;
    }
    MailScreen #mail-browse {
        height: auto;
    }
    MailScreen.composing #mail-compose {
        display: block;
    }
    MailScreen.composing #mail-browse {
        display: none;
    }
    MailScreen #mail-status {
        height: auto;
        display: none;  /* until there is a status to show */
    }
    MailScreen #mail-target {
        max-height: 5;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "close", show=False),
        Binding("c", "compose", "compose", show=False),
    ]

    def __init__(
        self,
        slug: str,
        settings: MailSettings,
        *,
        from_session: str,
        from_agent: str,
        targets: list[MailTarget],
    ) -> None:
        super().__init__()
        self.slug = slug
        self.settings = settings
        self.from_session = from_session
        self.from_agent = from_agent
        self.targets = targets
        self.messages: list[mail.Message] = []

    # -- layout ----------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="mail-dialog"):
            with Vertical(id="mail-browse"):
                yield NavPickList(id="mail-list")
                yield Static("", id="mail-preview")
                yield Label("", id="mail-status", markup=False)
                yield KeyHints(
                    [("⏎", "read+consume"), ("c", "compose"), ("j/k", "move"), ("esc", "close")],
                    classes="dialog-footer",
                )
            with Vertical(id="mail-compose"):
                yield Label("compose to:", classes="field-label")
                options = [Option("any", id="any")] + [
                    Option(Text(t.label), id=t.session) for t in self.targets
                ]
                yield TargetList(*options, id="mail-target")
                yield DraftArea(placeholder="the message", id="mail-draft")
                yield Label("", id="mail-error", classes="dialog-error", markup=False)
                yield KeyHints(DRAFT_HINTS, id="mail-compose-hints", classes="dialog-footer")

    def on_mount(self) -> None:
        self.query_one("#mail-target", OptionList).highlighted = 0
        self.reload()
        self.query_one("#mail-list", NavPickList).focus()

    # -- browse ----------------------------------------------------------------------

    def reload(self, keep_index: int | None = None) -> None:
        problems: list[str] = []
        try:
            self.messages = mail.list_messages(self.slug, problems=problems)
        except (OSError, mail.MailError) as exc:
            self.messages = []
            problems.append(str(exc))
        for problem in problems:
            log.warning("%s", problem)
        listing = self.query_one("#mail-list", NavPickList)
        listing.clear_options()
        if self.messages:
            listing.add_options(
                [Option(row_text(m, self.targets, self.from_session)) for m in self.messages]
            )
            index = 0 if keep_index is None else min(keep_index, len(self.messages) - 1)
            listing.highlighted = index
        else:
            listing.add_option(Option(Text("(no mail)", Style(dim=True)), disabled=True))
        self._update_title()
        self._show_preview()

    def _update_title(self) -> None:
        dialog = self.query_one("#mail-dialog")
        if self.has_class("composing"):
            dialog.border_title = "mail · compose"
        else:
            dialog.border_title = f"mail · {len(self.messages)}"

    def _show_preview(self) -> None:
        preview = self.query_one("#mail-preview", Static)
        index = self.query_one("#mail-list", NavPickList).highlighted
        if not self.messages or index is None or index >= len(self.messages):
            preview.update("")
            preview.display = False
            return
        message = self.messages[index]
        to = recipient_text(message, self.targets)
        sender = sender_text(message, self.targets, self.from_session)
        body = mail.display_body(message.body).strip().splitlines()
        shown = body[:PREVIEW_LINES]
        text = Text()
        text.append(f"from {sender} to {to}\n", Style(bold=True))
        text.append("\n".join(shown))
        if len(body) > PREVIEW_LINES:
            text.append(f"\n… {len(body) - PREVIEW_LINES} more line(s)", Style(dim=True))
        preview.update(text)
        preview.display = True

    @on(OptionList.OptionHighlighted, "#mail-list")
    def _highlighted(self) -> None:
        self._show_preview()

    @on(OptionList.OptionSelected, "#mail-list")
    def _consume(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        index = event.option_index
        if index >= len(self.messages):
            return
        message = self.messages[index]
        if mail.consume(message):
            log.info("mail %s consumed by dash:overlay", message.id)
        self.reload(keep_index=index)

    # -- compose ---------------------------------------------------------------------

    def action_compose(self) -> None:
        if self.has_class("composing"):
            return
        self.add_class("composing")
        self._update_title()
        self.query_one("#mail-error", Label).update("")
        self.query_one(DraftArea).focus()
        # The list was hidden while browsing: scroll it once it has a size, so
        # the addressee that will receive the mail is the row in view.
        self.call_after_refresh(self._show_target)

    def _show_target(self) -> None:
        self.query_one(TargetList).scroll_to_highlight()

    @on(TargetList.Typed)
    def _typed_in_list(self, event: TargetList.Typed) -> None:
        event.stop()
        draft = self.query_one(DraftArea)
        draft.focus()
        draft.insert(event.character)

    def on_descendant_focus(self, event: events.DescendantFocus) -> None:
        hints = TARGET_HINTS if isinstance(event.widget, TargetList) else DRAFT_HINTS
        self.query_one("#mail-compose-hints", KeyHints).set_hints(hints)

    def action_back(self) -> None:
        if self.has_class("composing"):
            self._leave_compose()
            return
        self.dismiss(None)

    def _leave_compose(self) -> None:
        self.remove_class("composing")
        self.query_one(DraftArea).clear()
        self._update_title()
        self.query_one("#mail-list", NavPickList).focus()

    @on(OptionList.OptionSelected, "#mail-target")
    def _target_chosen(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.query_one(DraftArea).focus()

    @on(DraftArea.Submitted, "#mail-draft")
    def _send(self, event: DraftArea.Submitted) -> None:
        event.stop()
        body = event.text.strip()
        if not body:
            return
        target = self._chosen_target()
        try:
            mail.store(
                self.slug,
                body,
                from_session=self.from_session,
                from_agent=self.from_agent,
                to=target.agent if target else "any",
                to_session=target.session if target else None,
                keep=self.settings.keep,
                max_message_bytes=self.settings.max_message_bytes,
            )
        except (OSError, mail.MailError) as exc:
            self.query_one("#mail-error", Label).update(Text(f"mail not sent: {exc}"))
            return
        self._leave_compose()
        self.reload()
        status = f"sent to {target.label if target else 'any'}"
        label = self.query_one("#mail-status", Label)
        label.update(Text(status, Style(dim=True)))
        label.display = True

    def _chosen_target(self) -> MailTarget | None:
        index = self.query_one("#mail-target", OptionList).highlighted
        if index is None or index == 0 or index > len(self.targets):
            return None
        return self.targets[index - 1]
