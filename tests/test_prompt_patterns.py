"""Recorded screens of the real vendor CLIs: every first-run dialog is needs-you,
every ordinary input prompt is recognised as one, and nothing else is.

The captures under data/attention/real are `tmux capture-pane -p` of the real
CLIs at 120x40 (throwaway HOME, offline), named <cli>-<version>-<screen>.txt
(a -80x24 suffix: recorded at 80x24 where the layout differs). A -colours
suffix: the CLI run on zirv's own terminal model with the outer terminal's
colours known (OSC 10/11 answered, as most terminals do), which copilot draws
differently; tmux 3.3a's answer does not switch it, so these are the model's rows.
The built-in demo agent and a shell are checked live on a real PTY.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from zirv_dash.attention.states import PaneState
from zirv_dash.attention.tracker import (
    NEEDS_ANSWER,
    NEEDS_LOGIN,
    NEEDS_PERMISSION,
    at_input_prompt,
    detect_needs_you,
    match_needs_you,
)
from zirv_dash.harnesses import adapters
from zirv_dash.panes.pane import Pane
from zirv_dash.panes.spec import PaneSpec

REAL = Path(__file__).parent / "data" / "attention" / "real"

# file -> (needs-you reason or None, at its ordinary input prompt)
SCREENS: dict[str, tuple[str | None, bool]] = {
    "claude-2.1.197-trust.txt": (NEEDS_PERMISSION, False),
    "claude-2.1.197-login.txt": (NEEDS_LOGIN, False),
    "claude-2.1.197-input.txt": (None, True),
    "claude-2.1.197-input-after-error.txt": (None, True),
    "claude-2.1.197-slash-menu.txt": (None, False),  # "/exit" typed: a draft
    "codex-0.171.0-trust.txt": (NEEDS_PERMISSION, False),
    "codex-0.171.0-input.txt": (None, True),
    "codex-0.171.0-input-after-error.txt": (None, True),
    "codex-0.171.0-slash-menu.txt": (None, False),
    "codex-0.171.0-working-offline.txt": (None, False),  # a turn is running
    "codex-0.171.0-signin.txt": (NEEDS_LOGIN, False),
    "codex-0.171.0-signin-other-way.txt": (NEEDS_LOGIN, False),
    "codex-0.171.0-signin-device-code-error.txt": (NEEDS_LOGIN, False),  # offline
    "codex-0.171.0-bedrock.txt": (NEEDS_LOGIN, False),
    "codex-0.171.0-api-key.txt": (NEEDS_LOGIN, False),
    "codex-0.171.0-api-key-80x24.txt": (NEEDS_LOGIN, False),
    "codex-0.171.0-api-key-typed-80x24.txt": (NEEDS_LOGIN, False),  # a key typed, unsaved
    "codex-0.171.0-browser-login.txt": (NEEDS_LOGIN, False),
    "gemini-0.61.0-trust.txt": (NEEDS_PERMISSION, False),
    "gemini-0.61.0-auth.txt": (NEEDS_LOGIN, False),
    "gemini-0.61.0-api-key.txt": (NEEDS_LOGIN, False),
    "gemini-0.61.0-input.txt": (None, True),
    "gemini-0.61.0-input-draft.txt": (None, False),
    "gemini-0.61.0-working-offline.txt": (None, False),
    "copilot-1.0.102-trust.txt": (NEEDS_PERMISSION, False),
    "copilot-1.0.102-input.txt": (None, True),
    "copilot-1.0.102-trust-colours.txt": (NEEDS_PERMISSION, False),
    "copilot-1.0.102-input-colours.txt": (None, True),  # was never idle ("?")
    "copilot-1.0.102-input-colours-80x24.txt": (None, True),
    "copilot-1.0.102-input-draft-colours.txt": (None, False),  # "hello" typed
    "qwen-0.15.10-auth.txt": (NEEDS_LOGIN, False),
    # Its auth dialog past the first menu (was "?"): a sub-menu, the provider
    # list, the OAuth providers, a custom-provider step.
    "qwen-0.15.10-auth-access-method.txt": (NEEDS_LOGIN, False),
    "qwen-0.15.10-auth-providers.txt": (NEEDS_LOGIN, False),
    "qwen-0.15.10-auth-oauth.txt": (NEEDS_LOGIN, False),
    "qwen-0.15.10-auth-custom-base-url.txt": (NEEDS_LOGIN, False),
    "qwen-0.15.10-input.txt": (None, True),
    "opencode-1.18.33-input.txt": (None, True),
    "opencode-1.18.33-connect.txt": (NEEDS_LOGIN, False),
    "pi-0.73.1-input.txt": (None, True),
    "pi-0.73.1-login.txt": (NEEDS_ANSWER, False),
    "grok-1.0.1-input.txt": (None, True),
    "grok-1.0.1-no-key.txt": (None, False),  # it printed an error and exited
    "droid-0.225.2-login.txt": (NEEDS_LOGIN, False),
}


LOOK_ALIKES = ({"gemini", "qwen"}, {"claude", "copilot"})


def capture(name: str) -> list[str]:
    return (REAL / name).read_text(encoding="utf-8").splitlines()


def agent_of(name: str) -> str:
    return name.split("-")[0]


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_recorded_screen_needs_you(name: str) -> None:
    reason, _ = SCREENS[name]
    assert detect_needs_you(agent_of(name), capture(name)) == reason


@pytest.mark.parametrize("name", sorted(SCREENS))
def test_recorded_screen_input_prompt(name: str) -> None:
    _, at_prompt = SCREENS[name]
    assert at_input_prompt(agent_of(name), capture(name)) is at_prompt


def test_every_real_capture_is_covered() -> None:
    assert {p.name for p in REAL.glob("*.txt")} == set(SCREENS)


@pytest.mark.parametrize("name", sorted(n for n, (_, ok) in SCREENS.items() if ok))
def test_a_prompt_is_another_harness_s_unknown(name: str) -> None:
    """Recognition is per harness: one CLI's composer says nothing of another's
    screen, and a harness with no known composer is never at its prompt."""
    own = agent_of(name)
    assert not at_input_prompt("droid", capture(name))
    assert not at_input_prompt("no-such-harness", capture(name))
    # Look-alikes draw the same composer: qwen is a Gemini CLI fork, and
    # Copilot's "❯" between rules is Claude Code's.
    alike = next((pair for pair in LOOK_ALIKES if own in pair), {own})
    others = {"claude", "codex", "gemini", "opencode", "copilot", "pi", "grok"} - alike
    assert [o for o in sorted(others) if at_input_prompt(o, capture(name))] == []


@pytest.mark.parametrize(
    "name",
    ["claude-2.1.197-input.txt", "codex-0.171.0-input.txt", "gemini-0.61.0-input.txt"],
)
def test_a_dialog_drawn_over_the_composer_is_not_the_prompt(name: str) -> None:
    """A trust question left on screen above a composer that is still drawn:
    the composer alone is not enough when the bottom shows a dialog."""
    agent = agent_of(name)
    dialog = {
        "claude": capture("claude-2.1.197-trust.txt"),
        "codex": capture("codex-0.171.0-trust.txt"),
        "gemini": capture("gemini-0.61.0-auth.txt"),
    }[agent]
    screen = [line for line in capture(name) if line.strip()] + [
        line for line in dialog if line.strip()
    ]
    assert detect_needs_you(agent, screen) is not None
    assert not at_input_prompt(agent, screen)


CODEX_LOGIN = {
    "codex-0.171.0-signin.txt": "codex-login",
    "codex-0.171.0-signin-other-way.txt": "codex-login",
    "codex-0.171.0-signin-device-code-error.txt": "codex-login",
    "codex-0.171.0-bedrock.txt": "codex-login",
    "codex-0.171.0-api-key.txt": "codex-api-key",
    "codex-0.171.0-api-key-80x24.txt": "codex-api-key",
    "codex-0.171.0-api-key-typed-80x24.txt": "codex-api-key",
    "codex-0.171.0-browser-login.txt": "codex-browser-login",
}


def _nonblank(name: str) -> list[str]:
    return [line for line in capture(name) if line.strip()]


@pytest.mark.parametrize("name", sorted(CODEX_LOGIN))
def test_codex_sign_in_screens_are_codex_s_own(name: str) -> None:
    """Each sign-in screen is caught by its own codex pattern, and says nothing
    about another harness's pane (the patterns are scoped to codex)."""
    pattern = match_needs_you("codex", capture(name))
    assert pattern is not None and pattern.name == CODEX_LOGIN[name]
    others = ("claude", "gemini", "qwen", "copilot", "droid", "opencode", "pi", "grok", "shell")
    assert [o for o in others if detect_needs_you(o, capture(name))] == []


@pytest.mark.parametrize("name", sorted(CODEX_LOGIN))
def test_codex_sign_in_answered_is_not_needs_you(name: str) -> None:
    """The sign-in text left above codex's composer (signed in, now at the prompt)
    or scrolled far up by the ordinary screen is only history, never ▲."""
    composer = _nonblank("codex-0.171.0-input.txt")
    assert detect_needs_you("codex", _nonblank(name) + composer[-4:]) is None
    assert detect_needs_you("codex", _nonblank(name) + composer) is None
    assert (
        detect_needs_you("codex", _nonblank(name) + _nonblank("codex-0.171.0-working-offline.txt"))
        is None
    )


def test_an_empty_screen_is_unknown() -> None:
    for agent in ("claude", "codex", "gemini", "demo", "shell", "pi"):
        assert not at_input_prompt(agent, [""] * 40)


# -- built-ins, live ------------------------------------------------------------------


def _pane(agent: str, argv: list[str], tmp_path: Path) -> Pane:
    spec = PaneSpec(agent, adapters.ADAPTERS[agent], argv, str(tmp_path))
    pane = Pane(spec, 80, 24, 1 << 20)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "TERM": "xterm-256color"}
    assert pane.start({**env, "PS1": "$ ", "ZIRV_DEMO_SPINNER": "0", "ZIRV_DEMO_WORK_SECS": "0"})
    return pane


def _await(pane: Pane, cond: str, check: Callable[[], object], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            screen = "\n".join(pane.model_view.lines())
            raise AssertionError(f"timed out waiting for {cond}:\n{screen}")
        pane.read_available()
        pane.pump(65536)
        time.sleep(0.02)


def test_demo_agent_prompt_and_its_question(tmp_path: Path) -> None:
    demo = adapters.ADAPTERS["demo"]
    pane = _pane("demo", demo.interactive_argv(), tmp_path)
    try:
        _await(pane, "the demo prompt", pane.at_input_prompt)
        pane.send(b"x")  # a draft: typing a quit command now would append to it
        _await(pane, "the draft", lambda: not pane.at_input_prompt())
        pane.send(b"\x7f")
        _await(pane, "the empty prompt again", pane.at_input_prompt)
        pane.send(b"/ask\r")
        _await(
            pane,
            "the question",
            lambda: "Do you want to proceed?" in "\n".join(pane.model_view.lines()),
        )
        _await(pane, "needs-you", lambda: detect_needs_you("demo", pane.model_view.lines()))
        assert not pane.at_input_prompt()
        pane.send(b"n")
        _await(pane, "the prompt after the answer", pane.at_input_prompt)
    finally:
        pane.stop(grace=0.5)


def test_shell_prompt_but_not_while_a_job_runs(tmp_path: Path) -> None:
    pane = _pane("shell", ["/bin/sh"], tmp_path)
    try:
        _await(pane, "the shell prompt", pane.at_input_prompt)
        # A foreground job whose last line also ends like a prompt.
        # (It ends by itself: an interrupt depends on how the test runner left
        # SIGINT for its children, and an ignored one outlives the wait.)
        pane.send(b"printf 'job> '; sleep 3\r")
        _await(pane, "the job's output", lambda: "job>" in pane.last_screen_line())
        assert pane.pty is not None
        tty, shell = pane.pty.fd, pane.pty.pid
        _await(pane, "the sleep in the foreground", lambda: os.tcgetpgrp(tty) != shell)
        assert not pane.at_input_prompt()
        _await(pane, "the prompt after the job", pane.at_input_prompt)
        pane.send(b"echo draft")
        _await(pane, "the draft", lambda: pane.last_screen_line().endswith("draft"))
        assert not pane.at_input_prompt()
    finally:
        pane.stop(grace=0.5)


def test_ctrl_c_reaches_a_job_when_the_dashboard_ignores_sigint(tmp_path: Path) -> None:
    """Started in the background of a script (or under nohup) the dashboard runs
    with SIGINT ignored; its panes' children must not inherit that."""
    import signal

    before = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        pane = _pane("shell", ["/bin/sh"], tmp_path)
    finally:
        signal.signal(signal.SIGINT, before)
    try:
        _await(pane, "the shell prompt", pane.at_input_prompt)
        pane.send(b"sleep 60; echo not-interrupted\r")
        assert pane.pty is not None
        tty, shell = pane.pty.fd, pane.pty.pid
        _await(pane, "the sleep in the foreground", lambda: os.tcgetpgrp(tty) != shell)
        pane.send(b"\x03")
        _await(pane, "the prompt after Ctrl+C", pane.at_input_prompt)
        assert "not-interrupted" not in [line.strip() for line in pane.model_view.lines()]
    finally:
        pane.stop(grace=0.5)


REDRAWER = r"""
import os, signal, sys, time
PROMPT = b"\x1b[H\x1b[Jtool ready\r\n$ "  # erase down, as qwen does: no scrolling
def redraw(*_):
    # What qwen does on a width change: erase, draw the history back in
    # pieces (the screen between them is not the prompt), the prompt last.
    os.write(1, b"\x1b[H\x1b[J" + b"history line\r\n" * 3)
    time.sleep(0.4)
    os.write(1, PROMPT)
signal.signal(signal.SIGWINCH, redraw)
os.write(1, PROMPT)
while True:
    time.sleep(1)
"""


def test_our_resize_redraw_through_a_half_drawn_frame_is_no_work(tmp_path: Path) -> None:
    """zirv's own zoom or sidebar toggle resizes a pane; a child redrawing in
    pieces showed a frame that is not its prompt, and the pane read Working
    for the rest of its quiet period (qwen: 4-12 s) though it did no work."""
    script = tmp_path / "redrawer.py"
    script.write_text(REDRAWER)
    pane = _pane("shell", [sys.executable, str(script)], tmp_path)
    try:
        pane.tracker.set_visible(True, time.monotonic())  # screens read every 0.1 s
        _await(pane, "idle at the prompt", lambda: pane.state() is PaneState.IDLE)
        pane.resize(100, 30)
        seen: set[PaneState] = set()
        half_drawn = False
        deadline = time.monotonic() + 1.2
        while time.monotonic() < deadline:
            pane.read_available()
            pane.pump(65536)
            seen.add(pane.state())
            half_drawn |= "history line" in "\n".join(pane.model_view.lines())
            time.sleep(0.02)
        assert half_drawn and pane.repaint_bytes > 0
        assert pane.at_input_prompt()
        assert seen == {PaneState.IDLE}
    finally:
        pane.stop(grace=0.5)
