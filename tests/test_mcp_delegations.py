"""The bridge's read-only delegation tools, and `zirv ctx mcp doctor` against the
real bridge (pass) and a broken `--repo` (a clear reason, exit 1)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_mcp_bridge import call, serve
from tests.test_spawn import make_repo
from zirv_dash.delegation import records


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "work" / "repo")


async def test_delegation_list_and_result_over_mcp(repo: Path, tmp_path: Path) -> None:
    mine = records.create(repo, harness="demo", owner="operator", workdir=str(repo))
    other = make_repo(tmp_path / "work" / "other")
    theirs = records.create(other, harness="codex", owner="operator", workdir=str(other))
    async with serve(repo) as session:
        listed = await call(session, "delegation_list")
        got = await call(session, "delegation_result", handle=mine.handle)
        foreign = await session.call_tool("delegation_result", {"handle": theirs.handle})
        bad = await session.call_tool("delegation_result", {"handle": "../../x"})
    assert [r["handle"] for r in listed["data"]["delegations"]] == [mine.handle]
    assert got["data"]["handle"] == mine.handle and got["data"]["state"] == "launching"
    assert foreign.is_error and "no delegation" in str(foreign.content)
    assert bad.is_error and "not a delegation handle" in str(bad.content)


def doctor(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "ZIRV_CTX_SESSION"}
    return subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "ctx", "mcp", "doctor", *args],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_doctor_passes_against_the_real_bridge(repo: Path) -> None:
    got = doctor(repo, "--repo", str(repo))
    assert got.returncode == 0, got.stderr
    report = json.loads(got.stdout)
    assert report["ok"] is True and report["repository"] == str(repo)
    assert {"session_snapshot", "delegation_list", "delegation_result"} <= set(report["tools"])


def test_doctor_fails_with_the_reason_on_a_broken_repo(repo: Path, tmp_path: Path) -> None:
    got = doctor(repo, "--repo", str(tmp_path / "no-such-repo"))
    assert got.returncode == 1
    report = json.loads(got.stdout)
    assert report["ok"] is False and report["step"] == "start"
    assert "is not a directory" in report["reason"]
    assert "zirv ctx mcp doctor: start:" in got.stderr


def test_doctor_fails_on_a_session_of_nowhere(repo: Path) -> None:
    got = doctor(repo, "--session", "ffff0000")
    assert got.returncode == 1
    assert "not in the session registry" in json.loads(got.stdout)["reason"]
