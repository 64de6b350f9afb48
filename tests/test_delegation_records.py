"""Delegation handles and their durable records: minted for `zirv agent`, for
spawn requests a dashboard accepts; torn and foreign records never trusted;
`zirv ctx status --agents`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.intakehelpers import ask, drive, live_dashboard, request
from tests.test_agent_cli import zirv
from tests.test_spawn import make_repo
from zirv_dash import paths
from zirv_dash.delegation import records
from zirv_dash.delegation.records import RecordProblem


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "work" / "repo")


def ctx(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZIRV_CTX_SESSION")}
    return subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "ctx", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=30,
    )  # fmt: skip


def test_a_record_is_private_atomic_and_read_back(repo: Path) -> None:
    record = records.create(repo, harness="demo", owner="operator", workdir=str(repo))
    assert records.HANDLE_RE.match(record.handle)
    path = records.repo_dir(repo) / f"{record.handle}.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert records.read(repo, record.handle) == record
    assert record.state == "launching" and record.attempts == []
    assert [p.name for p in path.parent.iterdir() if ".tmp-" in p.name] == []


def test_torn_and_foreign_records_are_reported_never_trusted(repo: Path, tmp_path: Path) -> None:
    good = records.create(repo, harness="demo", owner="operator", workdir=str(repo))
    torn = records.repo_dir(repo) / "d-000000000001.json"
    torn.write_text('{"handle": "d-000000000001", "repo_k')
    other = make_repo(tmp_path / "work" / "other")
    theirs = records.create(other, harness="demo", owner="operator", workdir=str(other))
    copied = records.repo_dir(repo) / f"{theirs.handle}.json"
    copied.write_bytes((records.repo_dir(other) / f"{theirs.handle}.json").read_bytes())
    renamed = records.repo_dir(repo) / "d-000000000002.json"
    renamed.write_bytes((records.repo_dir(repo) / f"{good.handle}.json").read_bytes())
    problems: list[str] = []
    assert [r.handle for r in records.list_all(repo, problems)] == [good.handle]
    assert len(problems) == 3
    assert any("torn or invalid" in p for p in problems)
    assert sum("belongs elsewhere" in p for p in problems) == 2
    with pytest.raises(RecordProblem, match="belongs elsewhere"):
        records.read(repo, theirs.handle)
    with pytest.raises(RecordProblem, match="not a delegation handle"):
        records.read(repo, "../../etc/passwd")


def test_inline_zirv_agent_mints_a_handle_and_records_the_run(repo: Path) -> None:
    state = paths.state_dir()
    got = zirv(["shell", "say hi", "--json"], repo, state, stdin="echo done-here; exit 3\n")
    assert got.returncode == 3, got.stderr
    doc = json.loads(got.stdout)
    handle = doc["handle"]
    record = records.read(repo, handle)
    assert record.harness == "shell" and record.owner == "operator" and record.state == "ended"
    assert [a.short for a in record.attempts] == [doc["session"]]
    assert record.outcome is not None and record.outcome.exit_code == 3
    assert record.outcome.identity == f"{handle}:1:ended"
    assert "done-here" in record.outcome.tail
    assert [d.identity for d in record.deliveries] == [f"{handle}:1:ended"]
    assert record.deliveries[0].published_at is not None  # mailed after it was persisted
    listed = ctx(["status", "--agents", "--json"], repo)
    assert listed.returncode == 0, listed.stderr
    (row,) = json.loads(listed.stdout)
    assert set(row) >= {"handle", "harness", "state", "owner", "permit", "age_s", "outcome"}
    assert (row["handle"], row["harness"], row["state"], row["owner"], row["permit"]) == (
        handle, "shell", "ended", "operator", None,
    )  # fmt: skip
    assert row["outcome"]["exit_code"] == 3 and isinstance(row["age_s"], int)
    plain = ctx(["status", "--agents"], repo)
    assert handle in plain.stdout and "ended" in plain.stdout


def test_a_dashboard_mints_a_handle_for_a_spawn_request_and_acks_it(repo: Path) -> None:
    with live_dashboard(repo) as (dash, intake):
        assert intake.channel is not None
        ack = ask(dash, intake, intake.channel.requests, request(repo, agent="shell"))
        assert ack is not None and ack.ok and ack.handle is not None
        record = records.read(repo, ack.handle)
        assert record.state == "running" and record.mode == "read-only"
        assert record.current is not None and record.current.short == ack.short
        assert record.owner == "tester" and record.host_pid == os.getpid()
        pane = dash.pane_by_short(ack.short or "")
        assert pane is not None
        pane.send(b"exit\r")
        drive(dash, intake, lambda: records.read(repo, ack.handle or "").state == "ended")
        ended = records.read(repo, ack.handle)
        assert ended.outcome is not None and ended.outcome.kind == "ended"


def test_a_request_naming_a_foreign_handle_gets_a_minted_one(repo: Path, tmp_path: Path) -> None:
    other = make_repo(tmp_path / "work" / "other")
    theirs = records.create(other, harness="demo", owner="operator", workdir=str(other))
    with live_dashboard(repo) as (dash, intake):
        assert intake.channel is not None
        body = request(repo, agent="shell", handle=theirs.handle)
        ack = ask(dash, intake, intake.channel.requests, body)
        assert ack is not None and ack.ok and ack.handle not in (None, theirs.handle)
        assert any("no delegation" in e.text for e in dash.errors.unacked)
        assert records.read(other, theirs.handle).state == "launching"  # untouched


def test_prune_keeps_what_still_matters(repo: Path) -> None:
    made = [records.create(repo, harness="demo", owner="operator", workdir=str(repo))
            for _ in range(5)]  # fmt: skip
    for r in made[:3]:
        records.update(repo, r.handle, lambda x: records.replace(x, state="ended"))
    unsent = records.Delivery(identity=f"{made[0].handle}:1:ended", kind="ended", to="operator")
    records.update(repo, made[0].handle, lambda x: records.replace(x, deliveries=[unsent]))
    assert records.prune(repo, keep=1) == 1  # made[1] goes; made[2] is the one kept
    left = {r.handle for r in records.list_all(repo)}
    assert left == {made[0].handle, made[2].handle, made[3].handle, made[4].handle}
