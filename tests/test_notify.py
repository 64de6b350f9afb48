"""Outer-terminal notifications: the episode rule and the bytes sent."""

from __future__ import annotations

from pathlib import Path

import pytest

from zirv_dash import paths
from zirv_dash.attention import notify
from zirv_dash.attention.states import PaneState
from zirv_dash.config.layers import ConfigError, load_settings

NOTE = notify.Notification.for_pane("abcd1234", "claude", PaneState.DONE_UNSEEN, None)


def no_binary(_: str) -> str | None:
    return None


# --- the episode rule ----------------------------------------------------------------


def test_one_notification_per_episode() -> None:
    gate = notify.EpisodeGate()
    assert gate.observe("a", PaneState.NEEDS_YOU, focused=False)
    assert not gate.observe("a", PaneState.NEEDS_YOU, focused=False)  # same stay
    assert not gate.observe("a", PaneState.WORKING, focused=False)  # episode over
    assert gate.observe("a", PaneState.NEEDS_YOU, focused=False)  # a new stay


def test_each_notifying_state_is_its_own_episode() -> None:
    gate = notify.EpisodeGate()
    assert gate.observe("a", PaneState.NEEDS_YOU, focused=False)
    assert gate.observe("a", PaneState.FAILED, focused=False)
    assert gate.observe("b", PaneState.DONE_UNSEEN, focused=False)  # panes are separate


def test_never_for_the_focused_pane_even_after_looking_away() -> None:
    gate = notify.EpisodeGate()
    assert not gate.observe("a", PaneState.DONE_UNSEEN, focused=True)
    assert not gate.observe("a", PaneState.DONE_UNSEEN, focused=False)
    gate.observe("a", PaneState.IDLE, focused=False)
    assert gate.observe("a", PaneState.DONE_UNSEEN, focused=False)


@pytest.mark.parametrize(
    "state", [PaneState.STARTING, PaneState.WORKING, PaneState.IDLE, PaneState.EXITED]
)
def test_other_states_never_notify(state: PaneState) -> None:
    assert not notify.EpisodeGate().observe("a", state, focused=False)


# --- the bytes -------------------------------------------------------------------------


def test_osc9_outside_tmux() -> None:
    sent = notify.plan("osc", NOTE, {"TERM": "xterm-256color"}, no_binary)
    assert sent == notify.Delivery(data=b"\x1b]9;zirv: claude abcd1234 done\x07")


def test_osc777_for_terminals_that_speak_it() -> None:
    sent = notify.plan("osc", NOTE, {"TERM": "rxvt-unicode-256color"}, no_binary)
    assert sent.data == b"\x1b]777;notify;zirv;claude abcd1234 done\x07"
    assert notify.plan("osc", NOTE, {"VTE_VERSION": "7200"}, no_binary).data.startswith(
        b"\x1b]777;"
    )


def test_inside_tmux_the_osc_is_wrapped_in_passthrough_with_escs_doubled() -> None:
    sent = notify.plan("osc", NOTE, {"TMUX": "/tmp/tmux-0/default,1,0"}, no_binary)
    assert sent.data == b"\x1bPtmux;\x1b\x1b]9;zirv: claude abcd1234 done\x07\x1b\\"


def test_bell_is_a_plain_bel_even_in_tmux() -> None:
    assert notify.plan("bell", NOTE, {"TMUX": "x"}, no_binary) == notify.Delivery(data=b"\x07")


def test_off_sends_nothing() -> None:
    assert notify.plan("off", NOTE, {}, no_binary) == notify.Delivery()


def test_desktop_runs_notify_send_without_a_shell_or_falls_back_to_osc() -> None:
    sent = notify.plan("desktop", NOTE, {}, lambda name: f"/usr/bin/{name}")
    assert sent.argv == (
        "/usr/bin/notify-send", "--app-name=zirv", "--", "zirv", "claude abcd1234 done"
    )  # fmt: skip
    assert not sent.data
    assert notify.plan("desktop", NOTE, {}, no_binary).data.startswith(b"\x1b]9;")


def test_failed_and_needs_you_words() -> None:
    failed = notify.Notification.for_pane("orch", "codex", PaneState.FAILED, "exit 2")
    asks = notify.Notification.for_pane("abcd", "claude", PaneState.NEEDS_YOU, "needs approval")
    assert failed.body == "codex orch failed (exit 2)"
    assert asks.body == "claude abcd needs approval"


# --- sanitising --------------------------------------------------------------------------


def test_no_control_character_reaches_the_outer_terminal() -> None:
    hostile = "evil\x1b]52;c;aGk=\x07\x9b2J\x7f\u202e;x\nnext"
    note = notify.Notification.for_pane(hostile, hostile, PaneState.DONE_UNSEEN, hostile)
    for env in ({}, {"TERM": "foot"}, {"TMUX": "x"}):
        data = notify.plan("osc", note, env, no_binary).data.decode()
        inner = data.removeprefix("\x1bPtmux;").removesuffix("\x1b\\").replace("\x1b\x1b", "\x1b")
        body = inner[inner.index(";") + 1 : -1]
        assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in body), repr(body)
        assert "\u202e" not in body
    field = notify.osc777(note).split(";", 3)[3]
    assert ";" not in field.rstrip("\x07")


def test_long_labels_are_cut() -> None:
    note = notify.Notification.for_pane("x" * 500, "a", PaneState.DONE_UNSEEN, None)
    assert len(note.body) == notify.MAX_FIELD_CHARS


# --- configuration ------------------------------------------------------------------------


def test_dash_notify_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    assert load_settings(repo).dash.notify == "osc"
    operator = paths.operator_dir()
    operator.mkdir(parents=True, exist_ok=True)
    (operator / "ctx.toml").write_text('[dash]\nnotify = "bell"\n')
    assert load_settings(repo).dash.notify == "bell"
    monkeypatch.setenv("ZIRV_CTX_DASH_NOTIFY", "desktop")
    assert load_settings(repo).dash.notify == "desktop"
    monkeypatch.setenv("ZIRV_CTX_DASH_NOTIFY", "loud")
    with pytest.raises(ConfigError, match="notify"):
        load_settings(repo)


def test_run_desktop_reports_the_command_outcome(tmp_path: Path) -> None:
    assert notify.run_desktop(("/bin/sh", "-c", f'echo "$1" > {tmp_path}/got', "sh", "a;b"))
    assert (tmp_path / "got").read_text() == "a;b\n"  # an argument, never shell text
    assert not notify.run_desktop(("/bin/false",))
    assert not notify.run_desktop((str(tmp_path / "missing"),))
