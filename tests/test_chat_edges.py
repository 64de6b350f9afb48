"""`zirv chat` at its edges: a state directory it cannot write is one line (no
traceback) before the UI takes the terminal, and a repository whose path holds a
byte that is not UTF-8 still starts its panes, with the very bytes of the path."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.intakehelpers import drive, git_repo, live_dashboard, plain_shell_env
from zirv_dash.cli import chat
from zirv_dash.panes.ptysession import launch_problem

pytestmark = pytest.mark.timeout(60)


def chat_on_a_terminal(state: str, cwd: Path) -> tuple[int, str, bytes]:
    """`zirv chat --agent shell` on a 100x30 terminal (the dashboard's branch);
    (exit code, stderr, what reached the terminal)."""
    leader, follower = os.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZIRV_CTX_SESSION", "CLAUDE"))}
    env.update(ZIRV_CTX_STATE_DIR=state, TERM="xterm-256color", SHELL="/bin/sh")
    proc = subprocess.Popen(
        [sys.executable, "-m", "zirv_dash.cli.main", "chat", "--agent", "shell"],
        cwd=cwd, env=env, stdin=follower, stdout=follower, stderr=subprocess.PIPE,
    )  # fmt: skip
    os.close(follower)
    screen = b""
    deadline = time.monotonic() + 30
    try:
        while proc.poll() is None and time.monotonic() < deadline:
            if select.select([leader], [], [], 0.1)[0]:
                try:
                    screen += os.read(leader, 65536)
                except OSError:
                    break
        proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(leader)
    assert proc.stderr is not None
    return proc.returncode, proc.stderr.read().decode(errors="replace"), screen


def test_a_state_dir_that_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way\n")
    code, errors, screen = chat_on_a_terminal(str(blocker / "state"), tmp_path)
    assert code == 1
    assert "Traceback" not in errors
    assert errors.count("\n") == 1, errors
    assert errors.startswith("zirv: cannot write the state directory")
    assert "ZIRV_CTX_STATE_DIR" in errors and "zirv chat --simple" in errors
    assert b"\x1b[?1049h" not in screen  # the UI never took the terminal


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes a mode-0500 directory")
def test_a_read_only_state_dir_is_one_line(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir(mode=0o500)
    try:
        code, errors, _ = chat_on_a_terminal(str(state), tmp_path)
    finally:
        state.chmod(0o700)
    assert code == 1 and "Traceback" not in errors
    assert f"cannot write the state directory ({state}:" in errors


def test_the_refusal_names_the_directory_and_passes_a_writable_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(tmp_path / "fine"))
    assert chat.state_refusal() is None
    assert list((tmp_path / "fine").iterdir()) == []  # the probe leaves nothing
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(tmp_path / "file" / "state"))
    words = chat.state_refusal()
    assert words is not None and str(tmp_path / "file") in words


# --- a repository path that is not UTF-8 -------------------------------------------------

RAW_NAME = b"caf\xe9-repo"
"""A Latin-1 directory name: the byte 0xE9 alone is not UTF-8."""


def test_the_systems_own_bytes_may_reach_exec_and_a_lone_surrogate_may_not() -> None:
    path = os.fsdecode(b"/tmp/" + RAW_NAME)  # what os.getcwd() and $PWD give
    assert launch_problem(["/bin/echo", path], {"PWD": path}, path) is None
    refused = launch_problem(["/bin/echo"], {"PWD": "/tmp/\ud800"}, None)
    assert refused is not None and "PWD" in refused


def test_a_pane_starts_in_a_repository_whose_path_is_not_utf8(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain_shell_env(monkeypatch)
    raw_parent = os.fsencode(tmp_path) + b"/" + RAW_NAME
    os.mkdir(raw_parent)
    repo = git_repo(Path(os.fsdecode(raw_parent)), commit=True)
    # As a shell started there leaves them: the cwd and $PWD name the raw bytes.
    monkeypatch.chdir(repo)
    monkeypatch.setenv("PWD", str(repo))
    out = tmp_path / "seen"
    with live_dashboard(repo) as (dash, intake):
        pane = dash.panes[0]
        assert pane.spawn_error is None, pane.spawn_error
        pane.send(f'printf \'%s|%s\' "$PWD" "$(pwd)" > {out}\r'.encode())
        drive(dash, intake, lambda: out.exists() and out.read_bytes().count(b"|") == 1)
    pwd, cwd = out.read_bytes().split(b"|")
    assert pwd == os.fsencode(repo) and cwd == os.fsencode(repo)
