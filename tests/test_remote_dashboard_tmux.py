"""A remote host's sessions in the dashboard, end to end: tmux, a real sshd, a real
remote runtime (tests/sshrig.py: this machine with another HOME and state dir).

The dashboard opens the operator's hosts when it starts; the remote shell shows
as a row under its host, takes keys and draws its output like a local pane; a
dropped link (the ssh client killed) turns it `disconnected` and refuses keys
with a notice; the link comes back by itself to the same screen and the same
remote process; quitting the dashboard leaves the remote session running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sessionrig import ENGINE_SERVE, spawn_runtime
from tests.sshrig import ALIAS, ZIRV, SshServer, needs_sshd, sshd  # noqa: F401
from tests.tmuxharness import Tmux, eventually

pytestmark = [needs_sshd, pytest.mark.serial, pytest.mark.timeout(240)]
LOCAL_ZIRV = [sys.executable, "-m", "zirv_dash.cli.main"]


def remote_call(server: SshServer, method: str, params: dict[str, object]) -> dict[str, object]:
    done = subprocess.run(
        [ZIRV, "ctx", "api", "call", method, json.dumps(params)],
        env=server.remote_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.fixture
def remote_shell(sshd: SshServer) -> Iterator[tuple[SshServer, str]]:  # noqa: F811
    repo = sshd.remote_home / "repo"
    repo.mkdir()
    runtime = spawn_runtime(ENGINE_SERVE, cwd=repo, env=sshd.remote_env())
    try:
        started = remote_call(sshd, "session.start", {"harness": "shell", "name": "far"})
        session = started["session"]
        assert isinstance(session, dict)
        yield sshd, str(session["id"])
    finally:
        subprocess.run(
            [ZIRV, "session", "stop", "--runtime"],
            env=sshd.remote_env(),
            capture_output=True,
            timeout=60,
            check=False,
        )
        try:
            runtime.wait(60)
        except subprocess.TimeoutExpired:
            runtime.kill()


def test_a_remote_session_is_a_pane_that_survives_a_dropped_link(
    tmux: Tmux, remote_shell: tuple[SshServer, str]
) -> None:
    server, sid = remote_shell
    added = subprocess.run(
        [*LOCAL_ZIRV, "remote", "add", "box", ALIAS, "--ssh-config", str(server.config)]
        + ["--zirv", ZIRV],
        env={**os.environ, "ZIRV_HOME": tmux.env["ZIRV_HOME"]},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert added.returncode == 0, added.stderr
    tmux.start([*LOCAL_ZIRV, "chat", "--agent", "shell"], 120, 40)
    tmux.wait_dashboard()
    screen = tmux.wait_for("@box", timeout=30)  # the host's group header
    assert "far" in screen
    pid_before = remote_call(server, "session.get", {"session": sid})["session"]

    tmux.keys("C-a", "2")  # the remote row
    tmux.text("echo far-$((6*7))")
    tmux.keys("Enter")
    tmux.wait_for("far-42", timeout=30)
    typed = remote_call(server, "session.read", {"session": sid})
    assert "far-42" in json.dumps(typed)  # it ran there, not here

    # The link drops (and cannot come back while ssh's config is away): the row
    # says so, keys are refused with a notice, never queued.
    config = server.config
    away = config.with_name("ssh_config.away")
    config.rename(away)
    links = tmux.pids_running(b"session", b"proxy")
    assert links, "no ssh link among the dashboard's processes"
    for pid in links:
        os.kill(pid, signal.SIGKILL)
    screen = tmux.wait_for("Disconnected", timeout=20)  # the focused pane's header
    assert "⇣" in screen  # its row's glyph
    tmux.text("x")
    tmux.wait_for("keys not sent", timeout=10)
    # It comes back by itself, to the same screen and the same remote process.
    away.rename(config)
    eventually(lambda: bool(tmux.pids_running(b"session", b"proxy")), "a new link", 60)
    tmux.wait_gone("Disconnected", timeout=30)
    assert "far-42" in tmux.capture()
    facts = remote_call(server, "session.get", {"session": sid})["session"]
    assert isinstance(facts, dict) and isinstance(pid_before, dict)
    assert facts["pid"] == pid_before["pid"] and facts["state"] == "running"

    # Quitting detaches: the remote session runs on; nothing of ours is left.
    tmux.quit()
    facts = remote_call(server, "session.get", {"session": sid})["session"]
    assert isinstance(facts, dict) and facts["state"] == "running"
    eventually(lambda: not tmux.marked_pids(), "no process of the dashboard left", 20)
    assert Path(tmux.env["ZIRV_HOME"], "remotes.toml").exists()
