"""The diff review in a real terminal (tmux): `e` hands the terminal to $EDITOR
and the review comes back with the edit in the diff."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.gitrepos import IDENTITY, make_repo
from tests.tmuxharness import Tmux, base_env

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
