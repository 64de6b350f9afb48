"""A follow-up of an ended claude worker resumes its conversation (`--resume`)
only when the delegating pane asks on its own channel, for an attempt of that
very handle, and the transcript exists; anything else is refused by name."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from tests.intakehelpers import ask, live_dashboard, private_channel, request
from tests.test_mcp_autoregister import FAKE
from tests.test_spawn import make_repo
from zirv_dash.delegation import records
from zirv_dash.delegation.transcripts import claude_transcript

SESSION = "12345678-1111-4222-8333-444455556666"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "claude").write_text(FAKE)
    (bindir / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ARGV_OUT", str(tmp_path / "argv"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    return make_repo(tmp_path / "work" / "repo")


def ended_claude(repo: Path, owner: str) -> records.Delegation:
    made = records.create(repo, harness="claude", owner=owner, workdir=str(repo))
    records.update(repo, made.handle, lambda r: records.add_attempt(r, "12345678", SESSION, "x"))
    return records.update(repo, made.handle, lambda r: records.replace(r, state="ended"))


def argv_of(tmp_path: Path) -> list[str]:
    out = tmp_path / "argv.claude"
    for _ in range(500):
        if out.exists() and out.read_text().endswith("\n"):
            break
        time.sleep(0.02)
    return out.read_text().splitlines()


def test_a_verified_follow_up_resumes_the_conversation(repo: Path, tmp_path: Path) -> None:
    with live_dashboard(repo) as (dash, intake):
        orch = dash.panes[0]
        record = ended_claude(repo, orch.short)
        transcript = claude_transcript(SESSION, str(repo))
        transcript.parent.mkdir(parents=True)
        transcript.write_text("{}\n")
        body = request(repo, agent="claude", requested_by=orch.short, handle=record.handle,
                       resume=SESSION, prompt="Follow-up: more")  # fmt: skip
        ack = ask(dash, intake, private_channel(intake, orch.short), body)
        assert ack is not None and ack.ok, ack
        argv = argv_of(tmp_path)
        assert argv[argv.index("--resume") + 1] == SESSION and "--session-id" not in argv
        assert len(records.read(repo, record.handle).attempts) == 2


@pytest.mark.parametrize("case", ["not-an-attempt", "no-transcript", "shared-channel", "other"])
def test_an_unverified_resume_is_refused(repo: Path, case: str) -> None:
    with live_dashboard(repo) as (dash, intake):
        orch = dash.panes[0]
        record = ended_claude(repo, "someone" if case == "other" else orch.short)
        if case != "no-transcript":
            transcript = claude_transcript(SESSION, str(repo))
            transcript.parent.mkdir(parents=True)
            transcript.write_text("{}\n")
        resume = "87654321-1111-4222-8333-444455556666" if case == "not-an-attempt" else SESSION
        body = request(repo, agent="claude", requested_by=orch.short, handle=record.handle,
                       resume=resume, prompt="more")  # fmt: skip
        assert intake.channel is not None
        channel = intake.channel.requests if case == "shared-channel" else private_channel(
            intake, orch.short)  # fmt: skip
        ack = ask(dash, intake, channel, body)
        assert ack is not None and not ack.ok
        said = {
            "not-an-attempt": "is not an attempt of",
            "no-transcript": "no transcript of attempt 1",
            "shared-channel": "only a delegating pane's own channel",
            "other": "is not a claude delegation of pane",
        }[case]
        assert said in (ack.reason or ""), ack.reason
        assert len(records.read(repo, record.handle).attempts) == 1
