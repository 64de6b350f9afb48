"""`zirv ctx handover` run as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

SHORT = "abcd1234"
SESSION = "abcd1234-0000-4000-8000-000000000001"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("ZIRV_", "CLAUDE")) and k not in ("HOME", "PATH")
    }
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    base.update(
        ZIRV_CTX_STATE_DIR=str(tmp_path / "state"),
        ZIRV_HOME=str(tmp_path / "zirv-home"),
        HOME=str(tmp_path / "home"),
        PATH=str(bin_dir),
        PYTHONPATH=str(Path(__file__).resolve().parents[1]),
    )
    return base


def repo(tmp_path: Path) -> Path:
    return tmp_path / "repo"


def run(
    tmp_path: Path, env: dict[str, str], *args: str, timeout: float = 30
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "ctx", "handover", *args],
        cwd=repo(tmp_path),
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start(tmp_path: Path, env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "zirv_dash.cli.main", "ctx", "handover", *args],
        cwd=repo(tmp_path),
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def sessions(tmp_path: Path) -> Path:
    return tmp_path / "state" / "sessions"


def write_record(tmp_path: Path, **fields: object) -> None:
    record: dict[str, object] = {
        "session": SESSION,
        "short": SHORT,
        "agent": "demo",
        "repo": str(repo(tmp_path).resolve()),
        "repo_slug": "-x",
        "verb": "chat",
        "role": "orchestrator",
        "pid": os.getpid(),
        "started_at": int(time.time()),
        "owner_pid": os.getpid(),
        "model": "demo-standard",
    }
    record.update(fields)
    sessions(tmp_path).mkdir(parents=True, exist_ok=True)
    (sessions(tmp_path) / f"{SHORT}.json").write_text(json.dumps(record, indent=2))


def field(out: str, name: str) -> str:
    for line in out.splitlines():
        if line.strip().startswith(f"{name}:"):
            return line.split(":", 1)[1].strip()
    raise AssertionError(f"no {name!r} line in:\n{out}")


def test_dry_run_claude_deep_with_no_live_session(tmp_path: Path, env: dict[str, str]) -> None:
    done = run(tmp_path, env, "--agent", "claude", "--model", "deep", "--dry-run")
    # The real run would fail (no session, claude not installed): so does the dry run.
    assert done.returncode == 1, done.stderr
    assert field(done.stdout, "harness") == "claude"
    assert field(done.stdout, "tier") == "deep"
    assert field(done.stdout, "model").startswith("opus")
    assert field(done.stdout, "target") == "(no live session)"
    status = field(done.stdout, "status")
    assert "would fail: no live session (no orchestrator in this repo)" in status
    assert "would be refused:" in status and "not installed" in status
    assert not status.startswith("ready")
    assert not sessions(tmp_path).exists() or not list(sessions(tmp_path).iterdir())


def test_dry_run_shows_the_live_orchestrator_and_changes_nothing(
    tmp_path: Path, env: dict[str, str]
) -> None:
    write_record(tmp_path)
    before = sorted(p.name for p in sessions(tmp_path).iterdir())
    done = run(tmp_path, env, "--agent", "shell", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert field(done.stdout, "harness") == "shell"
    assert field(done.stdout, "tier") == "standard"
    assert field(done.stdout, "model").startswith("–")
    assert field(done.stdout, "target").startswith(f"{SHORT} demo/demo-standard (orchestrator")
    assert "never on a shell's argv" in field(done.stdout, "delivery")
    assert field(done.stdout, "status").startswith("ready: ")
    assert sorted(p.name for p in sessions(tmp_path).iterdir()) == before


def test_dry_run_keeps_the_current_tier_and_uses_env_overrides(
    tmp_path: Path, env: dict[str, str]
) -> None:
    write_record(tmp_path, model="demo-deep")
    done = run(tmp_path, env, SHORT[:4], "--model", "cheap", "--dry-run")
    assert field(done.stdout, "model").startswith("demo-cheap")
    env["ZIRV_CTX_HANDOVER_DEMO_DEEP"] = "demo-huge"
    done = run(tmp_path, env, "--agent", "demo", "--dry-run")
    assert field(done.stdout, "tier") == "deep"  # the pane runs a deep model
    assert field(done.stdout, "model") == "demo-huge (operator override handover.demo.deep)"
    assert "first prompt" in field(done.stdout, "delivery")


def test_dead_and_garbage_records_are_ignored(tmp_path: Path, env: dict[str, str]) -> None:
    write_record(tmp_path, pid=2**22 + 12345, owner_pid=2**22 + 12345)
    (sessions(tmp_path) / "zzzz9999.json").write_text("{garbage")
    (sessions(tmp_path) / "yyyy8888.json").write_text("[]")
    (sessions(tmp_path) / f"{SHORT}.seat.json").write_text("{}")
    done = run(tmp_path, env, "--agent", "demo", "--model", "deep", "--dry-run")
    assert done.returncode == 1, done.stderr
    assert field(done.stdout, "target") == "(no live session)"
    done = run(tmp_path, env, "zzzz", "--agent", "demo", "--dry-run")
    assert field(done.stdout, "target") == "(no live session matching 'zzzz')"
    assert (sessions(tmp_path) / "zzzz9999.json").exists()  # never deletes others' files


def test_dry_run_exits_as_the_real_run_would(tmp_path: Path, env: dict[str, str]) -> None:
    write_record(tmp_path)
    # A swap that would go ahead: ready, exit 0, nothing written.
    done = run(tmp_path, env, "--agent", "shell", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert field(done.stdout, "status").startswith("ready")
    assert not list(sessions(tmp_path).glob("*.handover-req"))
    # Already there: the real run says nothing to do and exits 0.
    done = run(tmp_path, env, "--agent", "demo", "--model", "standard", "--dry-run")
    assert done.returncode == 0
    assert field(done.stdout, "status").startswith(f"nothing to do: pane {SHORT}")
    real = run(tmp_path, env, "--agent", "demo", "--model", "standard")
    assert real.returncode == 0 and "nothing to do" in real.stdout
    # A prefix that matches nothing: the real run exits 1, and so does the dry run.
    done = run(tmp_path, env, "zzzz", "--agent", "shell", "--dry-run")
    real = run(tmp_path, env, "zzzz", "--agent", "shell")
    assert done.returncode == real.returncode == 1
    assert field(done.stdout, "status") == "would fail: no live session matching 'zzzz'"


def test_unresolvable_tier_is_refused_naming_the_key(tmp_path: Path, env: dict[str, str]) -> None:
    done = run(tmp_path, env, "--agent", "opencode", "--model", "deep", "--dry-run")
    assert done.returncode == 1
    assert "zirv ctx config set handover.opencode.deep <model>" in done.stderr
    done = run(tmp_path, env, "--agent", "nope", "--dry-run")
    assert done.returncode == 1 and "unknown harness 'nope'" in done.stderr


@pytest.mark.parametrize("args", [[], ["--bogus"], ["--dry-run"], ["a", "b", "--agent", "x"]])
def test_usage_errors_exit_2(tmp_path: Path, env: dict[str, str], args: list[str]) -> None:
    assert run(tmp_path, env, *args).returncode == 2


def test_help_exits_0(tmp_path: Path, env: dict[str, str]) -> None:
    done = run(tmp_path, env, "--help")
    assert done.returncode == 0 and "--dry-run" in done.stdout


def test_request_without_a_live_session_is_refused(tmp_path: Path, env: dict[str, str]) -> None:
    done = run(tmp_path, env, "--agent", "shell")
    assert done.returncode == 1
    assert "no live session" in done.stderr


def test_request_to_a_missing_harness_is_refused_before_writing(
    tmp_path: Path, env: dict[str, str]
) -> None:
    write_record(tmp_path)
    done = run(tmp_path, env, "--agent", "claude", "--model", "deep")
    assert done.returncode == 1
    assert "claude is not installed" in done.stderr
    assert not (sessions(tmp_path) / f"{SHORT}.handover-req").exists()


def answer(tmp_path: Path, ack: dict[str, object]) -> dict[str, object]:
    """Play the dashboard: claim the request, then write `ack`."""
    req_path = sessions(tmp_path) / f"{SHORT}.handover-req"
    deadline = time.monotonic() + 20
    while not req_path.exists():
        assert time.monotonic() < deadline, "no request written"
        time.sleep(0.02)
    request: dict[str, object] = json.loads(req_path.read_text())
    req_path.unlink()
    (sessions(tmp_path) / f"{SHORT}.handover-ack").write_text(json.dumps(ack))
    return request


def test_request_and_ok_ack(tmp_path: Path, env: dict[str, str]) -> None:
    write_record(tmp_path)
    (sessions(tmp_path) / f"{SHORT}.handover-ack").write_text('{"ok": false}')  # stale
    proc = start(tmp_path, env, "--agent", "shell", "--force")
    ack = {
        "ok": True,
        "reason": "",
        "from_agent": "demo",
        "from_model": "demo-standard",
        "to_agent": "shell",
        "to_model": None,
        "stored": False,
    }
    request = answer(tmp_path, ack)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert request["target_agent"] == "shell" and request["target_model"] is None
    assert request["force"] is True and isinstance(request["requested_at"], int)
    assert f"handover done: pane {SHORT} demo/demo-standard → shell/–" in out
    assert not (sessions(tmp_path) / f"{SHORT}.handover-ack").exists()


def test_request_stored_for_idle(tmp_path: Path, env: dict[str, str]) -> None:
    write_record(tmp_path)
    proc = start(tmp_path, env, SHORT, "--model", "deep")
    answer(tmp_path, {"ok": True, "to_agent": "demo", "to_model": "demo-deep", "stored": True})
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "next idle boundary" in out


def test_request_refused_by_the_dashboard(tmp_path: Path, env: dict[str, str]) -> None:
    write_record(tmp_path)
    proc = start(tmp_path, env, "--agent", "demo", "--model", "cheap")
    answer(tmp_path, {"ok": False, "reason": "pane abcd1234 is not idle; retry once it is"})
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 1
    assert "handover refused: pane abcd1234 is not idle" in err


def test_no_answer_withdraws_the_request(tmp_path: Path, env: dict[str, str]) -> None:
    write_record(tmp_path)
    env["ZIRV_HANDOVER_WAIT_SECS"] = "0.3"
    done = run(tmp_path, env, "--agent", "demo", "--model", "cheap")
    assert done.returncode == 1
    assert "request withdrawn" in done.stderr
    assert not (sessions(tmp_path) / f"{SHORT}.handover-req").exists()


def test_request_for_what_the_pane_already_runs_is_a_no_op(
    tmp_path: Path, env: dict[str, str]
) -> None:
    write_record(tmp_path, model="demo-deep")
    done = run(tmp_path, env, "--model", "deep")
    assert done.returncode == 0, done.stderr
    assert "already runs demo/demo-deep; nothing to do" in done.stdout
    assert not (sessions(tmp_path) / f"{SHORT}.handover-req").exists()


def fake_claude(tmp_path: Path, env: dict[str, str]) -> None:
    """A `claude` on PATH and a HOME with none of its credentials."""
    claude = tmp_path / "bin" / "claude"
    claude.write_text("#!/bin/sh\nexit 0\n")
    claude.chmod(0o755)
    (tmp_path / "home").mkdir(exist_ok=True)
    for name in list(env):
        if name.startswith(("ANTHROPIC_", "CLAUDE_")):
            del env[name]
    env["XDG_RUNTIME_DIR"] = str(tmp_path / "run")


def test_not_logged_in_harness_is_refused_unless_forced(
    tmp_path: Path, env: dict[str, str]
) -> None:
    write_record(tmp_path)
    fake_claude(tmp_path, env)
    done = run(tmp_path, env, "--agent", "claude", "--model", "deep")
    assert done.returncode == 1
    assert "claude is not logged in: no ~/.claude/.credentials.json or ANTHROPIC_API_KEY" in (
        done.stderr
    )
    assert "--force" in done.stderr
    assert not (sessions(tmp_path) / f"{SHORT}.handover-req").exists()  # nothing started

    dry = run(tmp_path, env, "--agent", "claude", "--model", "deep", "--dry-run")
    assert dry.returncode == 1 and "claude is not logged in" in field(dry.stdout, "status")

    # Logged in (its credentials file, as `claude /login` leaves it): no word of it.
    put = tmp_path / "home" / ".claude" / ".credentials.json"
    put.parent.mkdir(parents=True)
    put.write_text("{}")
    dry = run(tmp_path, env, "--agent", "claude", "--model", "deep", "--dry-run")
    assert dry.returncode == 0 and "not logged in" not in dry.stdout + dry.stderr
    put.unlink()

    # --force warns and goes ahead.
    proc = start(tmp_path, env, "--agent", "claude", "--model", "deep", "--force")
    request = answer(tmp_path, {"ok": True, "to_agent": "claude", "to_model": "x"})
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert request["target_agent"] == "claude"
    assert "warning: claude is not logged in" in err
