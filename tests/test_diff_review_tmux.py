"""The diff review in a real terminal (tmux): `e` hands the terminal to $EDITOR
and the review comes back with the edit in the diff."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.gitrepos import IDENTITY, make_repo
from tests.tmuxharness import ZIRV, Tmux, base_env

ROOT = Path(__file__).resolve().parent.parent


def test_edit_suspends_to_the_editor_and_reloads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_state: Path
) -> None:
    repo = make_repo(tmp_path, monkeypatch)
    (repo / "app.py").write_text("print('changed')\n")
    editor = tmp_path / "fake-editor"
    # A stand-in editor that records how it was called and appends a line.
    editor.write_text(
        '#!/bin/sh\nfor a; do f="$a"; done\necho "$@" > "$0.args"\n'
        'echo "# added in the editor" >> "$f"\n'
    )
    editor.chmod(0o755)
    env = base_env(isolated_state, tmp_path / "home")
    env.update(IDENTITY)
    env.update(EDITOR=str(editor), PYTHONPATH=str(ROOT), GIT_CONFIG_GLOBAL=os.devnull)
    tmux = Tmux(ROOT, env)
    try:
        tmux.start([sys.executable, "-m", "tests.reviewapp", str(repo)], 120, 40)
        tmux.wait_for("1 file(s)", timeout=30)
        tmux.keys("e")
        screen = tmux.wait_for("# added in the editor", timeout=30)
        assert "+2 -5" in screen  # the reloaded counts include the editor's line
        assert (repo / "app.py").read_text().endswith("# added in the editor\n")
        # The cursor started on the first changed line (new line 1): `+1 app.py`.
        assert Path(f"{editor}.args").read_text().split() == ["+1", "app.py"]
        tmux.keys("Escape")
        tmux.wait_for("EXITED 0", timeout=20)
    finally:
        tmux.kill()


@pytest.mark.tmux
@pytest.mark.parametrize("editor_kind", ["script", "true"])
def test_editor_in_the_dashboard_comes_back_to_a_live_dashboard(
    editor_kind: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, isolated_state: Path
) -> None:
    """The real dashboard (its own input driver): after the editor exits, the
    review and the panes are still there and keys still reach a pane (the input
    thread used to die on a closed pipe, ending the dashboard with every pane)."""
    repo = make_repo(tmp_path, monkeypatch)
    (repo / ".zirv").mkdir()
    (repo / "app.py").write_text("print('changed')\n")
    if editor_kind == "true":
        editor = "true"
    else:
        script = tmp_path / "fake-editor"
        script.write_text('#!/bin/sh\nfor a; do f="$a"; done\necho "# from the editor" >> "$f"\n')
        script.chmod(0o755)
        editor = str(script)
    env = base_env(isolated_state, tmp_path / "home")
    env.update(IDENTITY)
    env.update(EDITOR=editor, PYTHONPATH=str(ROOT), GIT_CONFIG_GLOBAL=os.devnull)
    tmux = Tmux(repo, env)
    try:
        tmux.start([*ZIRV, "chat", "--agent", "shell"], 120, 40)
        tmux.wait_dashboard(timeout=30)
        tmux.wait_for("▕$")
        tmux.keys("C-a", "D")
        tmux.wait_for("1 file(s)", timeout=30)
        tmux.keys("e")
        screen = tmux.wait_for(f"back from {Path(editor).name} (exit 0)", timeout=30)
        if editor_kind == "script":
            assert "# from the editor" in screen
        tmux.keys("Escape")
        tmux.wait_gone("1 file(s)")
        tmux.text("echo alive-$((40+2))")
        tmux.keys("Enter")
        screen = tmux.wait_for("alive-42")
        assert "EXITED" not in screen
        tmux.quit("EXITED 0")
    finally:
        tmux.kill()
