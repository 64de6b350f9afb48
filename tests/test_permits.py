"""Writer permits: one writing delegation per checkout; `--worktree` gives each
its own tree; read-only needs none; `zirv ctx status` shows who holds what."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.intakehelpers import ask, drive, live_dashboard, request
from tests.test_agent_cli import zirv
from tests.test_spawn import make_repo
from zirv_dash import paths
from zirv_dash.delegation import permits, records


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "work" / "repo")


def test_two_write_delegations_into_one_checkout(repo: Path) -> None:
    with live_dashboard(repo) as (dash, intake):
        assert intake.channel is not None
        chan = intake.channel.requests
        first = ask(dash, intake, chan, request(repo, agent="shell", mode="writing"))
        assert first is not None and first.ok and first.handle
        second = ask(dash, intake, chan, request(repo, agent="shell", mode="writing"))
        assert second is not None and not second.ok and not second.retryable
        assert f"delegation {first.handle}" in (second.reason or "")
        assert "already has a writer" in (second.reason or "")
        assert "--worktree" in (second.reason or "")
        # Read-only needs no permit; a worktree is a tree of its own.
        reader = ask(dash, intake, chan, request(repo, agent="shell", mode="read-only"))
        assert reader is not None and reader.ok
        third = ask(dash, intake, chan, request(repo, agent="shell", mode="writing", worktree=True))
        assert third is not None and third.ok, third
        held = {r.handle: r.permit for r in permits.live(repo)}
        assert held[first.handle] == str(repo)
        assert third.handle in held and held[third.handle] != str(repo)
        assert reader.handle not in held
        # `zirv ctx status` names the holders.
        out = subprocess.run(
            [sys.executable, "-m", "zirv_dash.cli.main", "ctx", "status"],
            cwd=repo, capture_output=True, text=True, timeout=30,
        )  # fmt: skip
        assert "writer permits:" in out.stdout
        assert f"{repo} held by {first.handle}" in out.stdout
        # The holder ends: its permit is released and the tree takes a new writer.
        pane = dash.pane_by_short(first.short or "")
        assert pane is not None
        pane.send(b"exit\r")
        drive(dash, intake, lambda: records.read(repo, first.handle or "").terminal)
        again = ask(dash, intake, chan, request(repo, agent="shell", mode="writing"))
        assert again is not None and again.ok


def test_zirv_agent_is_refused_naming_the_holder(repo: Path) -> None:
    holder = records.create(repo, harness="codex", owner="abcd1234", workdir=str(repo))
    assert permits.acquire(repo, holder.handle, repo) is None  # held by this (live) process
    state = paths.state_dir()
    got = zirv(["shell", "x", "--json"], repo, state, stdin="exit\n")
    assert got.returncode == 1
    doc = json.loads(got.stdout)
    assert doc["state"] == "launch_failed" and holder.handle in doc["reason"]
    assert "already has a writer" in got.stderr and "codex" in got.stderr
    refused = records.read(repo, doc["handle"])
    assert refused.state == "failed" and refused.permit is None
    # Read-only goes ahead beside the writer.
    ok = zirv(["shell", "x", "--json", "--mode", "read-only"], repo, state, stdin="exit 0\n")
    assert ok.returncode == 0, ok.stderr
    assert records.read(repo, json.loads(ok.stdout)["handle"]).mode == "read-only"


def test_a_permit_of_a_dead_host_is_released_by_itself(repo: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)  # fmt: skip
    stale = records.create(repo, harness="demo", owner="operator", workdir=str(repo))
    records.update(
        repo, stale.handle,
        lambda r: records.replace(r, permit=str(repo), host_pid=int(gone.stdout)),
    )  # fmt: skip
    fresh = records.create(repo, harness="demo", owner="operator", workdir=str(repo))
    assert permits.acquire(repo, fresh.handle, repo) is None
    assert [r.handle for r in permits.live(repo)] == [fresh.handle]
