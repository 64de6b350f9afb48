"""Delegation end to end in a real terminal (tmux): `zirv agent` into a live dashboard,
hostile drops, quit → relaunch → restore, and SIGKILL leaving no children."""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from tests.tmuxharness import ZIRV, Tmux, base_env
from zirv_dash import spawn

pytestmark = [pytest.mark.tmux, pytest.mark.timeout(90)]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    repo = tmp_path / "proj"
    (repo / ".zirv").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo.resolve()


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def tmux(project: Path, state: Path, tmp_path: Path) -> Iterator[Tmux]:
    t = Tmux(project, base_env(state, tmp_path / "operator"))
    yield t
    t.kill()


def live_token_dir(state: Path, timeout: float = 10.0) -> Path:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        root = spawn.dash_root(state)
        found = [
            p
            for p in (root.iterdir() if root.exists() else [])
            if spawn.TOKEN_DIR_RE.match(p.name) and spawn.owner_alive(p) is not None
        ]
        if len(found) == 1:
            return found[0]
        time.sleep(0.1)
    raise AssertionError(f"no single live dashboard channel under {state}")


def drop(channel: Path, body: Mapping[str, object], timeout: float = 20.0) -> spawn.SpawnAck:
    path = spawn.write_request(channel, body)
    got = spawn.wait_for_ack(path, timeout=timeout)
    assert got.ack is not None, got.message
    return got.ack


def cmdline(state: Path, short: str) -> list[str]:
    record = json.loads((state / "sessions" / f"{short}.json").read_text())
    raw = Path(f"/proc/{record['pid']}/cmdline").read_bytes()
    return raw.decode().split("\0")


def quit_dashboard(tmux: Tmux, name: str) -> None:
    tmux.quit("EXITED 0", timeout=20, name=name)


def gone(pids: list[int], timeout: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout
    alive = pids
    while time.monotonic() < deadline:
        alive = [p for p in alive if _running(p)]
        if not alive:
            return []
        time.sleep(0.1)
    return alive


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_delegate_refuse_quit_relaunch_restore(tmux: Tmux, project: Path, state: Path) -> None:
    tmux.start([*ZIRV, "chat", "--agent", "demo"], 120, 40)
    tmux.wait_dashboard()
    token = live_token_dir(state)

    # 1. `zirv agent` from a second window joins the live dashboard.
    tmux.start([*ZIRV, "agent", "demo", "say hi", "--json"], 500, 12, name="cli")
    out = tmux.wait_for("EXITED 0", name="cli")
    line = next(x for x in out.splitlines() if x.startswith("{"))
    receipt = json.loads(line)
    assert receipt["schema_version"] == 1 and receipt["mode"] == "dashboard_pane"
    assert receipt["state"] == "launched" and receipt["harness"] == "demo"
    first = receipt["session"]
    tmux.wait_for(first)  # the new pane's row in the sidebar

    # 2. A second writer into the same checkout is refused, naming the first.
    crafted = {
        "agent": "demo", "prompt": "crafted", "cwd": str(project), "requested_by": "evil",
        "force": True, "interactive": True, "flags": ["--dangerously-skip-permissions"],
    }  # fmt: skip
    ack = drop(token / "requests", crafted)
    assert not ack.ok and f"delegation {receipt['handle']}" in (ack.reason or "")
    # A crafted read-only drop asking for widening: accepted, but force and flags are stripped.
    crafted["mode"] = "read-only"
    ack = drop(token / "requests", crafted)
    assert ack.ok and ack.short
    second = ack.short
    argv = cmdline(state, second)
    assert "crafted" in argv and "--dangerously-skip-permissions" not in argv
    tmux.wait_for(second)

    # 3. A cwd outside the repo and a workdir outside the roots: refused with the reason.
    outside = {"agent": "demo", "prompt": "x", "cwd": "/", "requested_by": "evil"}
    ack = drop(token / "requests", outside)
    assert not ack.ok and ack.retryable
    assert f"this dashboard only spawns panes in its own repo ({project})" in (ack.reason or "")
    far = {**outside, "cwd": str(project), "workdir": "/usr"}
    ack = drop(token / "requests", far)
    assert not ack.ok and "outside the dashboard's workdir roots" in (ack.reason or "")
    tmux.wait_for("spawn refused")  # the header shows the sticky error

    # 4. Quit, relaunch: the Restore overlay brings the same panes back.
    quit_dashboard(tmux, "main")
    assert not token.exists()
    tmux.start([*ZIRV, "chat", "--agent", "demo"], 120, 40, name="again")
    screen = tmux.wait_for("restore · 2", name="again")
    assert f"[x] worker · demo · demo-standard · {first}" in screen
    assert f"[x] worker · demo · demo-standard · {second}" in screen
    tmux.keys("Enter", name="again")
    tmux.wait_for("restored 2 pane(s)", name="again")
    for short in (first, second):
        assert roster_restart_prompt_in(cmdline(state, short))
    quit_dashboard(tmux, "again")


def roster_restart_prompt_in(argv: list[str]) -> bool:
    return any("resuming after a dashboard restart" in a for a in argv)


def test_sigkill_leaves_no_children_and_the_next_launch_works(tmux: Tmux, state: Path) -> None:
    tmux.start([*ZIRV, "chat", "--agent", "shell"], 120, 40)
    tmux.wait_dashboard()
    token = live_token_dir(state)
    # From inside a pane: the inherited private channel, the pane as the parent.
    tmux.text(f"{shlex.join(ZIRV)} agent demo 'from inside'")
    tmux.keys("Enter")
    screen = tmux.wait_for("spawned in dashboard as ")
    short = screen.split("spawned in dashboard as ", 1)[1].split()[0]
    record = json.loads((state / "sessions" / f"{short}.json").read_text())
    assert record["verb"] == "dash" and record["role"] == "worker"
    dash_pid = spawn.read_owner_pid(token)
    assert dash_pid is not None
    children = [p for p in tmux.marked_pids() if p != dash_pid]
    assert len(children) >= 2  # the orchestrator and the worker
    os.kill(dash_pid, signal.SIGKILL)
    tmux.wait_for("EXITED 137")
    assert gone(children) == [], "children outlived a SIGKILLed dashboard"
    # The next launch sweeps the dead channel and works.
    tmux.start([*ZIRV, "chat", "--agent", "demo"], 120, 40, name="next")
    tmux.wait_dashboard(name="next")
    fresh = live_token_dir(state)
    assert fresh != token and not token.exists()
    quit_dashboard(tmux, "next")
