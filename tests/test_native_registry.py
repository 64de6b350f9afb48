"""Native panes in the session registry: `zirv ctx status|send|nudge|kill` reach
them as they reach PTY panes, through the native submit path and the
dashboard's own kill path (their pid is the dashboard's: never signalled).

A real dashboard (the App, its engine, its file watcher) on the offline demo
route; the ctx verbs run as real subprocesses against the same state dir.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from tests.apphelpers import dash_screen, make_app, wait_for
from zirv_dash import paths
from zirv_dash.native.engine import NativeSession
from zirv_dash.panes import registry
from zirv_dash.runtime.native_pane import NativeSessionPane


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / ".zirv").mkdir(parents=True)
    (repo / ".git").mkdir()
    return repo


async def ctx(repo: Path, *args: str) -> tuple[int, str, str]:
    """`zirv ctx ARGS` as the operator (no session of its own), from the repo."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZIRV_CTX_SESSION")}
    env.pop("ZIRV_CTX_AGENT", None)
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "zirv_dash.cli.main",
        "ctx",
        *args,
        cwd=repo,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, errs = await asyncio.wait_for(proc.communicate(), timeout=40)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), errs.decode()


def inputs(session: NativeSession) -> list[str]:
    return [str(e.data.get("text", "")) for e in session.events if e.kind == "input"]


def record_of(short: str) -> dict[str, object]:
    data = json.loads(registry.record_path(short).read_text())
    assert isinstance(data, dict)
    return data


async def test_ctx_verbs_reach_native_panes(repo: Path) -> None:
    app = make_app(repo, agent="native", extra=[("native", None)], manage_state=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.native_views) == 2, timeout=20)
        orch, worker = screen.dash.panes
        assert isinstance(orch, NativeSessionPane) and isinstance(worker, NativeSessionPane)
        assert orch.session is not None and worker.session is not None
        # Registered like any pane, with the pid of the process that runs them.
        for pane in (orch, worker):
            data = record_of(pane.short)
            assert data["agent"] == "native" and data["runtime"] == "native"
            assert data["pid"] == os.getpid() and data["state"] == "idle"
            assert data["repo_slug"] == paths.repo_slug(repo)
        assert record_of(orch.short)["verb"] == "chat"
        assert record_of(worker.short)["verb"] == "dash"

        code, out, errs = await ctx(repo, "status")
        assert code == 0, errs
        row = next(line for line in out.splitlines() if worker.short in line)
        assert " native dash " in row and " live " in row and "native pane" in row
        assert "idle" in row

        # Mail for the worker reaches its session through the submit path.
        code, out, errs = await ctx(repo, "send", "--to-session", worker.short, "-m", "ping")
        assert code == 0, errs
        await wait_for(pilot, lambda: any("ping" in t for t in inputs(worker.session)), 20)  # type: ignore[arg-type]
        line = next(t for t in inputs(worker.session) if "ping" in t)
        assert line.startswith("[zirv ▸ mail from")
        # The demo's turn stops at an approval: the record says so.
        await wait_for(pilot, lambda: worker.session.pending is not None, timeout=20)  # type: ignore[union-attr]
        await wait_for(pilot, lambda: record_of(worker.short)["state"] == "blocked")
        code, out, errs = await ctx(repo, "status", "--json")
        assert code == 0, errs
        rows = {r["short"]: r for r in json.loads(out)["sessions"]}
        assert rows[worker.short]["state"] == "blocked"
        assert rows[worker.short]["liveness"] == "live"

        # A nudge reaches the orchestrator: told through the same submit path.
        code, out, errs = await ctx(repo, "nudge", orch.short, "-m", "look at the worker")
        assert code == 0, errs
        await wait_for(pilot, lambda: any("[zirv ▸ mail]" in t for t in inputs(orch.session)), 20)  # type: ignore[arg-type]
        assert not any("look at the worker" in t for t in inputs(orch.session))  # advisory only

        # Kill ends that pane only, through the dashboard; nothing is signalled.
        code, out, errs = await ctx(repo, "kill", worker.short)
        assert code == 0, errs
        assert "ended native pane" in out
        assert not worker.alive and worker.session.closed
        assert not registry.record_path(worker.short).exists()
        assert orch.alive and app.is_running
        assert registry.record_path(orch.short).exists()
        # Quitting releases the record of every pane, native ones too.
        screen.engine.shutdown()
        await wait_for(pilot, lambda: not registry.record_path(orch.short).exists())


async def test_kill_refuses_a_native_record_without_a_channel(repo: Path) -> None:
    """A record that names no channel (or one outside the state dir) is refused by
    name: the pid in it is a dashboard's and is never signalled."""
    record = registry.SessionRecord.new(
        paths.new_session_id(), "native", repo, "dash", os.getpid(), runtime="native"
    )
    record.extra["dash_requests"] = "/tmp"
    registry.register(record)
    code, out, errs = await ctx(repo, "kill", record.short)
    assert code == 1
    assert "no usable control channel" in errs and "nothing was signalled" in errs
    assert registry.record_path(record.short).exists()
