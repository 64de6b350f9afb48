"""`[session] persistent = true` in a real terminal (a private tmux server):
`zirv chat` starts the runtime and shows its dashboard; kill -9 the client and
the next `zirv chat` shows the same screen over the same processes; a second
terminal observes, is refused the seat, takes it over; mail reaches a pane while
nobody is attached; `zirv session stop --runtime` leaves no process."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sessionrig import descendants, short_state, wait_gone
from tests.tmuxharness import ZIRV, Tmux, base_env, eventually
from zirv_dash import paths
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes import registry
from zirv_dash.session import blocking, cli

__all__ = ["short_state"]

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(150)]
SENDER = "0b9f4a52-3c1d-4e8a-9f00-5b6c7d8e9f10"


@pytest.fixture
def repo(short_state: Path) -> Path:
    where = short_state / "repo"
    where.mkdir()
    operator = short_state / "operator"
    operator.mkdir(exist_ok=True)
    (operator / "ctx.toml").write_text('agent = "shell"\n\n[session]\npersistent = true\n')
    return where


@pytest.fixture
def term(repo: Path, short_state: Path) -> Iterator[Tmux]:
    env = base_env(short_state, short_state / "operator")
    env["ZIRV_CTX_DASH_IDLE_QUIET_MS"] = "300"
    t = Tmux(repo, env)
    yield t
    t.kill()
    with_runtime_gone()


def with_runtime_gone() -> None:
    try:
        pid, _uid = blocking.server_credentials(cli.endpoint.socket_path(), timeout=1.0)
    except (blocking.NotRunning, OSError):
        return
    os.kill(pid, signal.SIGKILL)


def dash() -> dict[str, object]:
    got: dict[str, object] = blocking.call("session.get", {"session": "dash"})["session"]
    return got


def panes() -> list[dict[str, object]]:
    sessions = blocking.call("session.list")["sessions"]
    return [s for s in sessions if s["id"] != "dash"]


def test_zirv_chat_attaches_to_the_runtime_and_survives_kill_9(term: Tmux, repo: Path) -> None:
    term.start([*ZIRV, "chat"], 120, 40)
    term.wait_dashboard(timeout=40)
    eventually(lambda: dash()["controller"] is not None, "zirv chat to take the seat")
    (orch,) = panes()
    assert orch["harness"] == "shell" and orch["name"] == "orchestrator"
    term.text("echo pid-$$")
    term.keys("Enter")
    term.wait_for(f"pid-{orch['pid']}")

    (client_pid,) = term.pids_running(b"chat")
    os.kill(client_pid, signal.SIGKILL)
    term.wait_for("EXITED 137")
    eventually(lambda: dash()["controller"] is None, "the killed client's seat to be freed")

    term.start([*ZIRV, "chat"], 100, 30, name="again")
    screen = term.wait_for(f"pid-{orch['pid']}", name="again", timeout=30)  # the same screen
    assert "SESSIONS" in screen  # the whole dashboard, at the new terminal's size
    eventually(lambda: dash()["columns"] == 100, "the dashboard to follow the new size")
    (same,) = panes()
    assert same["pid"] == orch["pid"]  # nothing relaunched

    # A second terminal: the seat is taken, so it observes; its keys go nowhere.
    term.start([*ZIRV, "session", "attach"], 100, 30, name="watch")
    eventually(lambda: dash()["observers"] == 1, "the second client to observe")
    term.text("echo from-watcher", name="watch")
    term.text("echo from-controller-$((2+3))", name="again")
    term.keys("Enter", name="again")
    term.wait_for("from-controller-5", name="watch")
    assert "from-watcher" not in term.capture(name="again")
    controller = dash()["controller"]
    term.start([*ZIRV, "session", "attach", "--takeover"], 100, 30, name="take")
    eventually(lambda: dash()["controller"] not in (None, controller), "the takeover")
    term.text("echo taken-$((3+4))", name="take")
    term.keys("Enter", name="take")
    term.wait_for("taken-7", name="again")  # the old controller still watches

    # Everyone detaches; mail reaches a worker with nobody attached.
    for name in ("again", "watch", "take"):
        term.keys("C-a", "d", name=name)
        term.wait_for("[detached]", name=name)
    eventually(lambda: dash()["controller"] is None and dash()["observers"] == 0, "detaches")
    worker = blocking.call("session.start", {"harness": "demo", "name": "worker"})["session"]
    params = {"session": worker["id"], "text": "demo agent", "timeout": 30}
    blocking.call("session.wait", params, timeout=40)
    record = registry.read_record(paths.state_dir() / "sessions" / f"{worker['id']}.json")
    mail.store(
        paths.repo_slug(paths.repo_root(repo)),
        "mail-while-detached-42",
        from_session=SENDER,
        from_agent="claude",
        to_session=record.session,
    )
    params = {"session": worker["id"], "text": "mail-while-detached-42", "timeout": 45}
    blocking.call("session.wait", params, timeout=55)

    term.start([*ZIRV, "chat"], 120, 40, name="back")
    term.wait_for(f"{worker['id']} demo", name="back", timeout=30)  # in the sidebar
    term.keys("C-a", "2", name="back")
    term.wait_for("mail-while-detached-42", name="back")

    runtime_pid, _uid = blocking.server_credentials(cli.endpoint.socket_path())
    tree = descendants(runtime_pid) | {runtime_pid}
    stopped = subprocess.run(
        [*ZIRV, "session", "stop", "--runtime"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **term.env},
    )
    assert stopped.returncode == 0, stopped.stderr
    assert wait_gone(tree) == []
    term.wait_for("[runtime gone]", name="back")


@pytest.mark.parametrize("command", [["native"], ["chat", "--runtime", "native"]])
def test_zirv_native_attaches_to_the_runtime_too(
    term: Tmux, repo: Path, command: list[str]
) -> None:
    term.start([*ZIRV, *command], 120, 40)
    term.wait_dashboard(timeout=40)
    eventually(lambda: dash()["controller"] is not None, f"zirv {command[0]} to take the seat")
    (orch,) = panes()
    assert orch["harness"] == "native" and orch["name"] == "orchestrator"
    # The conversation is the runtime's: this terminal's client is gone, it is not.
    (client_pid,) = term.pids_running(command[0].encode())
    assert orch["pid"] is None  # zirv's own session: no child process
    os.kill(client_pid, signal.SIGKILL)
    term.wait_for("EXITED 137")
    eventually(lambda: dash()["controller"] is None, "the killed client's seat to be freed")
    (same,) = panes()
    assert same["id"] == orch["id"] and same["state"] == "running"


def test_keys_typed_while_zirv_chat_starts_reach_the_runtimes_pane(term: Tmux) -> None:
    """Typed at once: the start-up colour query reads them with the terminal's
    answers; the attach sends them on before anything it reads itself."""
    term.start([*ZIRV, "chat"], 120, 40)
    term.text("echo early-$((6*7))")
    term.keys("Enter")
    term.wait_dashboard(timeout=40)
    screen = term.wait_for("early-42", timeout=40)
    assert "EXITED" not in screen
