"""A key that answers a dialog is no draft: mail and nudges still arrive after it.

The demo agent's `/ask` takes a one-key answer (`y`), as a CLI's y/n question or a
trust menu's `1` does. That key used to be kept as the operator's unfinished draft,
and not even the turn signal cleared it: the pane never got mail again."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_delivery import SENDER, drive, text
from zirv_dash.attention.states import PaneState
from zirv_dash.config.layers import load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.mail import mailbox as mail
from zirv_dash.mail.delivery import DRAFT_HELD_SECS, DeliveryEngine
from zirv_dash.mail.injection import operator_typed
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime import Engine


@pytest.fixture
def dash(tmp_path: Path) -> Iterator[Dashboard]:
    settings = load_settings(tmp_path, flags={"dash": {"idle_quiet_ms": 300}})
    board = Dashboard(settings, tmp_path, manage_state=True)
    yield board
    board.shutdown_all(grace=0.2)


def asking(dash: Dashboard, engine: DeliveryEngine) -> Pane:
    """A demo worker at its y/n question."""
    pane = dash.spawn("demo", prompt="/ask")
    drive(dash, engine, lambda: pane.state() is PaneState.NEEDS_YOU)
    return pane


def mail_to(dash: Dashboard, pane: Pane, body: str) -> None:
    mail.store(
        dash.slug, body, from_session=SENDER, from_agent="claude", to_session=pane.session_id
    )


def test_a_one_key_answer_ends_when_the_screen_moves_on(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = asking(dash, engine)
    pane.send(b"y")  # typed by the operator, no Enter: the question takes one key
    assert pane.user_typed_since_turn and pane.typed_at_dialog
    drive(dash, engine, lambda: "approved" in text(pane) and pane.at_input_prompt())
    # No turn signal reached it (no socket is read here): the screen moving on
    # to the empty prompt after the key is what ended it.
    assert pane.turn_signal_at is None
    assert not pane.user_typed_since_turn
    drive(dash, engine, lambda: pane.is_idle())
    mail_to(dash, pane, "after the answer")
    engine.sweep()
    drive(dash, engine, lambda: "after the answer" in text(pane).replace("\n", ""))


def test_a_one_key_answer_ends_at_the_turn_signal(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = asking(dash, engine)
    pane.send(b"y")
    pane.turn_signal()  # before the screen moved on
    assert not pane.user_typed_since_turn
    assert not operator_typed(pane, time.monotonic())


def test_a_draft_at_the_prompt_holds_mail_and_says_so_after_a_minute(dash: Dashboard) -> None:
    board = Engine(dash)
    engine = board.mail.delivery
    pane = dash.spawn("demo")
    drive(dash, engine, lambda: pane.is_idle() and pane.at_input_prompt())
    pane.send(b"half a thought")  # at the prompt: a draft, the operator's line
    drive(dash, engine, lambda: "half a thought" in text(pane))
    pane.turn_signal()
    assert pane.user_typed_since_turn, "an unsent draft must keep blocking injection"
    mail_to(dash, pane, "waits for the draft")
    now = time.monotonic()
    engine.sweep_mail(now)
    assert pane.short in engine.waiting and pane.short not in engine.inflight
    assert not engine.held_by_draft(pane.short, now + DRAFT_HELD_SECS - 1)
    assert engine.held_by_draft(pane.short, now + DRAFT_HELD_SECS + 1)
    assert board.mail.badge(pane) == "✉1"
    engine.draft_held[pane.short] = time.monotonic() - DRAFT_HELD_SECS - 1
    assert board.mail.badge(pane) == "✉1 draft"
    # The draft is sent: the mail goes in after that turn, and the row says so no more.
    pane.send(b"\r")
    drive(dash, engine, lambda: "Working on: half a thought" in text(pane))
    drive(dash, engine, lambda: pane.is_idle())
    engine.sweep_mail()
    drive(dash, engine, lambda: "waits for the draft" in text(pane).replace("\n", ""))
    assert pane.short not in engine.draft_held and board.mail.badge(pane) == ""
