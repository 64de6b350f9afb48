"""Keys typed in one burst with a chord belong to the overlay the chord opens.

A burst is what a paste, a laggy SSH link or `tmux send-keys` delivers: every
key reaches the App before the first one has been handled. The Pilot tests post
the whole burst at once (as the driver does); the tmux test types it for real.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from screens.nudge import NudgeScreen
from screens.spawn import SpawnScreen
from tests.apphelpers import burst, chars, dash_screen, make_app, screen_text, wait_for
from tests.tmuxharness import ZIRV, Tmux

# Bursts are about arrival order under real scheduling: not beside another worker.
pytestmark = pytest.mark.serial


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "repo"
    (repo / ".zirv").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SHELL", "/bin/sh")
    monkeypatch.setenv("PS1", "$ ")
    return repo


async def test_text_after_a_nudge_chord_goes_to_the_dialog_not_the_pane(repo: Path) -> None:
    app = make_app(repo, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        pane = screen.dash.panes[0]
        await wait_for(pilot, lambda: "$" in screen_text(pane))
        burst(app, ["ctrl+a", "n", *chars("echo LEAKED")])
        await wait_for(pilot, lambda: isinstance(app.screen, NudgeScreen))
        nudge = app.screen
        await wait_for(pilot, lambda: "echo LEAKED" in nudge.query_one("TextArea").text)
        assert "LEAKED" not in screen_text(pane)


async def test_a_spawn_form_typed_in_one_burst_keeps_every_field(repo: Path) -> None:
    app = make_app(repo, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: "$" in screen_text(screen.dash.panes[0]))
        forms: list[object] = []
        original = screen.engine.spawn

        def spy(agent: str, **kwargs: object) -> object:
            forms.append((agent, kwargs.get("model"), kwargs.get("prompt")))
            return original(agent, **kwargs)  # type: ignore[arg-type]

        screen.engine.spawn = spy  # type: ignore[method-assign,assignment]
        # Harness "demo", Tab to the model, Tab to the prompt, the prompt, Enter.
        burst(app, ["ctrl+a", "s", *chars("demo"), "tab", "tab", *chars("task B"), "enter"])
        await wait_for(pilot, lambda: bool(forms), timeout=15)
        assert forms[0] == ("demo", None, "task B")
        assert not isinstance(app.screen, SpawnScreen)


async def test_keys_typed_one_at_a_time_still_reach_the_pane_at_once(repo: Path) -> None:
    app = make_app(repo, agent="shell")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        pane = screen.dash.panes[0]
        await wait_for(pilot, lambda: "$" in screen_text(pane))
        await pilot.press(*"echo ok-$((6*7))", "enter")
        await wait_for(pilot, lambda: "ok-42" in screen_text(pane))
        assert app.key_gate.pending == 0


@pytest.mark.tmux
@pytest.mark.timeout(90)
def test_send_keys_burst_after_a_chord_does_not_leak_into_the_shell(tmux: Tmux) -> None:
    tmux.env["SHELL"] = "/bin/sh"
    tmux.env["PS1"] = "$ "
    tmux.start([*ZIRV, "chat", "--agent", "shell"], 120, 40)
    tmux.wait_dashboard()
    tmux.wait_for("▕$")
    # One send-keys call: the chord and the text arrive in the same read.
    tmux.keys("C-a", "n", "echo LEAK", "ED")
    tmux.wait_for("echo LEAKED")
    tmux.keys("Escape")
    deadline = time.monotonic() + 10
    while "echo LEAKED" in tmux.capture() and time.monotonic() < deadline:
        time.sleep(0.05)
    # The shell still works and never saw the burst's text.
    tmux.keys("echo marker-$((1+1))", "Enter")
    screen = tmux.wait_for("marker-2")
    assert "LEAKED" not in screen
