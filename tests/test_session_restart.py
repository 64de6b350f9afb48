"""Tier 2: the runtime itself restarts. Its processes are gone; the roster it
wrote says which sessions there were; only a verified conversation reference
is resumed and the rest is reported as not resumed. The runtime's namespace
record is judged by process start identity, never by pid alone."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest

from tests.sessionrig import (
    ENGINE_SERVE,
    end_runtime,
    engine_env,
    engine_runtime,
    short_state,
    spawn_runtime,
)
from zirv_dash.dash.roster import RosterPane
from zirv_dash.handover.transcript import claude_project_slug
from zirv_dash.panes import procinfo
from zirv_dash.session import blocking, cli, identity
from zirv_dash.session.runtime import conversation_reference

__all__ = ["engine_runtime", "short_state"]

pytestmark = pytest.mark.timeout(90)


def test_after_a_restart_shell_and_demo_sessions_are_reported_not_resumed(
    engine_runtime: subprocess.Popen[str], short_state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = identity.read()
    assert first is not None and first.pid == engine_runtime.pid
    shell = blocking.call("session.start", {"harness": "shell", "name": "work"})["session"]
    demo = blocking.call("session.start", {"harness": "demo", "name": "agent"})["session"]
    assert cli.stop_runtime() == 0
    engine_runtime.wait(30)
    assert identity.read() is None  # withdrawn on the way down
    assert not procinfo.pid_exists(shell["pid"]) and not procinfo.pid_exists(demo["pid"])

    again = spawn_runtime(ENGINE_SERVE, cwd=short_state / "repo", env=engine_env(short_state))
    try:
        listed = blocking.call("session.list")
        assert listed["sessions"] == []  # nothing relaunched under an old identity
        reported = {entry["predecessor"]: entry for entry in listed["not_resumed"]}
        assert set(reported) == {shell["id"], demo["id"]}
        assert reported[shell["id"]]["name"] == "work"
        assert reported[shell["id"]]["harness"] == "shell"
        assert "no conversation to resume" in reported[shell["id"]]["reason"]
        assert reported[demo["id"]]["name"] == "agent"
        snapshot = blocking.call("session.snapshot")
        assert len(snapshot["not_resumed"]) == 2
        second = identity.read()
        assert second is not None and second.pid == again.pid
        assert second.instance != first.instance  # minted fresh at every start
        assert second.last_client_at is not None
        capsys.readouterr()
        assert cli.session_main(["list"]) == 0
        out = capsys.readouterr().out
        assert f"not resumed: {shell['id']} work (shell): shell has no conversation" in out
        assert "no sessions" in out
    finally:
        end_runtime(again)


def test_only_a_claude_conversation_found_on_disk_is_a_verified_reference(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    repo = tmp_path / "repo"
    repo.mkdir()
    conversation = str(uuid.uuid4())
    claude = RosterPane("claude", conversation, cwd=str(repo))
    assert conversation_reference(claude) is None  # nothing on disk: not verified
    transcript = tmp_path / "home" / ".claude" / "projects" / claude_project_slug(repo)
    transcript.mkdir(parents=True)
    (transcript / f"{conversation}.jsonl").write_text('{"type":"user"}\n')
    assert conversation_reference(claude) == "claude transcript"
    assert conversation_reference(RosterPane("claude", "not-a-uuid", cwd=str(repo))) is None
    assert conversation_reference(RosterPane("shell", conversation, cwd=str(repo))) is None
    assert conversation_reference(RosterPane("demo", conversation, cwd=str(repo))) is None


def test_a_record_is_judged_by_start_identity_not_pid_alone(short_state: Path) -> None:
    me = os.getpid()
    started = procinfo.process_start_time(me)
    assert started is not None
    live = identity.RuntimeRecord(pid=me, instance="a", start_time=started)
    recycled = identity.RuntimeRecord(pid=me, instance="b", start_time=started - 1000)
    unverifiable = identity.RuntimeRecord(pid=me, instance="c", start_time=None)
    assert identity.standing(live) == "live"
    assert identity.standing(recycled) == "stale"  # same pid, another process
    assert identity.standing(unverifiable) == "unverifiable"
    assert identity.standing(identity.RuntimeRecord(pid=2**22 - 1, instance="d")) == "stale"


def test_publishing_replaces_a_stale_record_and_leaves_an_unverifiable_one(
    short_state: Path,
) -> None:
    from zirv_dash import records

    path = identity.record_path()
    path.parent.mkdir(parents=True)
    parent = os.getppid()  # alive and not us: what another runtime would look like
    records.write(path, identity.RuntimeRecord(pid=parent, instance="old", start_time=1.0))
    ours = identity.Identity()
    assert ours.publish()  # the parent's real start time differs: a recycled pid
    assert identity.read() == ours.record
    records.write(path, identity.RuntimeRecord(pid=parent, instance="old", start_time=None))
    assert not identity.Identity().publish()  # cannot verify it: not seized
    kept = identity.read()
    assert kept is not None and kept.instance == "old"
    ours.withdraw()  # not ours any more: left in place
    assert path.exists()
