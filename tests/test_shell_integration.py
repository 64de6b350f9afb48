"""Shell integration (OSC 133) with a real bash whose prompt emits the marks:
the pane's state is exact (working while a command runs however quiet, idle at
the prompt), the last exit status is on its row, and copy mode jumps between
prompts and selects a command's output."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from screens.copy_mode import CopyModeScreen
from tests.apphelpers import dash_screen, make_app, screen_text, wait_for
from zirv_dash.attention.states import PaneState
from zirv_dash.dash import shell_blocks
from zirv_dash.terminal import TerminalModel

pytestmark = [
    pytest.mark.timeout(60),
    pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash"),
]

# FinalTerm's marks as bash integrations send them: D (with $?) and A before
# the prompt, B after it, C (PS0) once a command line is read.
PROMPT_COMMAND = r'printf "\033]133;D;%s\007" "$?"'
PS1 = r"\[\e]133;A\a\]bash$ \[\e]133;B\a\]"
PS0 = r"\[\e]133;C\a\]"


@pytest.fixture
def bash_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    # A private HOME whose ~/.bashrc (read after the system's) sets the prompt.
    (home / ".bashrc").write_text(f"PROMPT_COMMAND='{PROMPT_COMMAND}'\nPS1='{PS1}'\nPS0='{PS0}'\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SHELL", shutil.which("bash") or "bash")
    monkeypatch.delenv("TMUX", raising=False)


def test_blocks_in_the_model() -> None:
    m = TerminalModel(30, 10)
    mark = "\x1b]133;{}\x07".format
    m.feed(
        f"{mark('A')}$ {mark('B')}seq 3\r\n{mark('C')}1\r\n2\r\n3\r\n{mark('D;0')}"
        f"{mark('A')}$ {mark('B')}true\r\n{mark('C')}{mark('D;0')}{mark('A')}$ ".encode()
    )
    assert shell_blocks.prompt_starts(m) == [0, 4, 5]
    assert shell_blocks.prompt_before(m, 5) == 4 and shell_blocks.prompt_after(m, 0) == 4
    blank = lambda n: not m.lines()[n - m.history_size].strip()  # noqa: E731
    assert shell_blocks.output_span(m, 0, 30, blank) == ((1, 0), (3, 30))
    assert shell_blocks.output_span(m, 4, 30, blank) is None  # `true` printed nothing


async def test_bash_with_marks(tmp_path: Path, bash_env: None) -> None:
    app = make_app(tmp_path, flags={"dash": {"idle_quiet_ms": 300}})
    async with app.run_test(size=(100, 30)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: bool(dash.panes) and "bash$" in screen_text(dash.panes[0]))
        pane = dash.panes[0]
        await wait_for(pilot, lambda: pane.state() is PaneState.IDLE)
        pane.send(b"seq 3; sleep 1.5\r")
        await wait_for(pilot, lambda: pane.model_view.shell_running is True)
        # Quiet for far longer than idle_quiet_ms, and still working: the shell said so.
        await pilot.pause(0.9)
        assert pane.state() is PaneState.WORKING
        await wait_for(pilot, lambda: pane.model_view.shell_running is False, timeout=15)
        assert pane.state() in (PaneState.IDLE, PaneState.DONE_UNSEEN)
        assert pane.ended_note() == "$? 0"
        pane.send(b"false\r")
        await wait_for(pilot, lambda: pane.ended_note() == "$? 1")
        pane.send(b"echo one; echo two\r")
        await wait_for(pilot, lambda: screen_text(pane).count("bash$") >= 4)
        # Copy mode: up to the previous prompts, and the output of a command.
        await pilot.press("ctrl+a", "left_square_bracket")
        await wait_for(pilot, lambda: isinstance(app.screen, CopyModeScreen))
        copy = app.screen
        assert isinstance(copy, CopyModeScreen)
        cv = copy.copy_view
        await pilot.press("left_square_bracket")
        text = lambda n: "".join(cv.lines().cells(n)).rstrip()  # noqa: E731
        assert text(cv.cursor[0]).startswith("bash$ echo one")
        await pilot.press("o")
        assert cv.selected_text() == "one\ntwo"
        # (the cursor is at the end of that output: its prompt, then two more up)
        await pilot.press("left_square_bracket", "p", "left_square_bracket")
        assert text(cv.cursor[0]).startswith("bash$ seq 3")
        await pilot.press("ctrl+a")  # the same as o
        assert cv.selected_text() == "1\n2\n3"
        await pilot.press("right_square_bracket")
        assert text(cv.cursor[0]).startswith("bash$ false")
        await pilot.press("P")
        assert text(cv.cursor[0]).startswith("bash$ echo one")
        await pilot.press("escape")
