"""Mail and nudges for a remote host's pane (remote/pane.py), through the real
delivery engine and the pane's real socket (what the host link reads keys from).

A remote pane's mail lives in its own repository's mailbox and is typed by its
own runtime there (it runs the same delivery engine for its sessions): this
dashboard's mailbox is never copied to it. An operator nudge from here goes
through the link as typed input, and only when the pane is known to be at its
input prompt, with the link up and the controller seat ours.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from zirv_dash.config.layers import load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.mail import mailbox as mail
from zirv_dash.mail.delivery import DeliveryEngine, NudgeResult
from zirv_dash.remote.pane import RemotePane

pytestmark = pytest.mark.timeout(30)
PROMPT = b"ready\r\ndemo> "
"""The demo agent's input prompt, cursor after it (attention/input_prompts.py)."""


@pytest.fixture
def dash(tmp_path: Path) -> Iterator[Dashboard]:
    settings = load_settings(tmp_path, flags={"dash": {"idle_quiet_ms": 200}})
    board = Dashboard(settings, tmp_path, manage_state=True)
    yield board
    board.shutdown_all(grace=0.2)


def remote_demo(dash: Dashboard) -> RemotePane:
    pane = RemotePane(
        "box",
        "s1",
        "far",
        "demo",
        80,
        24,
        1 << 20,
        on_resize=lambda *_: None,
        on_stop=lambda _: None,
        say=lambda _: None,
    )
    pane.start({})
    dash.adopt(pane)
    pane.link_up(controller=True)
    pane.remote.far.send(PROMPT)  # what the link writes: the session's screen
    return pane


def drive(pane: RemotePane, engine: DeliveryEngine, cond: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 10
    while not cond():
        assert time.monotonic() < deadline, "condition not met in time"
        while pane.read_available():
            pass
        while pane.pump(65536):
            pass
        pane.check_screen()
        engine.retry_pending()
        time.sleep(0.02)


def typed(pane: RemotePane) -> bytes:
    """What went to the link (keys for `session.send_input`) so far."""
    got = b""
    while True:
        try:
            chunk = pane.remote.far.recv(65536)
        except BlockingIOError:
            return got
        if not chunk:
            return got
        got += chunk


def test_this_mailbox_is_never_typed_into_a_remote_pane(dash: Dashboard) -> None:
    engine = DeliveryEngine(dash)
    pane = remote_demo(dash)
    drive(pane, engine, pane.is_idle)
    assert pane.at_input_prompt()
    message = mail.store(dash.slug, "local words", from_session="x" * 8, from_agent="claude")
    engine.sweep()
    drive(pane, engine, lambda: True)
    assert typed(pane) == b""
    assert message.path.exists()  # left for a pane of this machine, not consumed
    assert pane.short not in engine.inflight


def test_a_nudge_goes_over_the_link_only_at_a_known_prompt_with_the_seat(
    dash: Dashboard,
) -> None:
    engine = DeliveryEngine(dash)
    pane = remote_demo(dash)
    drive(pane, engine, pane.is_idle)
    pane.link_up(controller=False)  # another client holds the seat: we only watch
    assert pane.is_idle()
    assert engine.nudge(pane, "wake up") is NudgeResult.QUEUED
    pane.link_down("the link to box is down; reconnecting")
    engine.retry_pending()
    assert typed(pane) == b""
    pane.link_up(controller=True)
    drive(pane, engine, lambda: not engine.nudges)
    sent = typed(pane)
    assert b"nudge from operator] wake up" in sent
