"""Report-back for `zirv agent` runs: from a plain terminal (inline), from a pane
running inline, and into a live dashboard pane. Each gets a
`logs/delegation-results/<short>.json` record and a report mail."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.intakehelpers import drive, git_repo, live_dashboard, private_channel
from zirv_dash import paths
from zirv_dash.delegation import result as delegation_result
from zirv_dash.mail import mailbox as mail

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return git_repo(tmp_path)


def zirv_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZIRV_CTX_SESSION",))}
    env.pop("ZIRV_CTX_DASH_REQUESTS", None)
    env.update(SHELL="/bin/sh", ZIRV_DEMO_WORK_SECS="0", ZIRV_DEMO_SPINNER="0")
    env.update(extra or {})
    return env


def zirv(
    args: list[str], cwd: Path, stdin: str = "", **extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", *args],
        cwd=cwd, env=zirv_env(extra), input=stdin, capture_output=True, text=True, timeout=30,
    )  # fmt: skip


def stored(short: str) -> dict[str, object]:
    found = delegation_result.read(short)
    assert found is not None, f"no delegation result for {short}"
    return found


def test_plain_terminal_inline_run_is_recorded_and_mailed_to_the_operator(repo: Path) -> None:
    got = zirv(
        ["agent", "shell", "do it", "--json"], repo, stdin="echo worker-said-$((6*7)); exit 3\n"
    )
    assert got.returncode == 3, got.stderr
    assert "worker-said-42" in got.stderr  # the output still reaches the terminal
    short = json.loads(got.stdout)["session"]
    result = stored(short)
    assert result["mode"] == "inline" and result["exit_code"] == 3
    assert result["requested_by"] == "operator" and result["harness"] == "shell"
    assert result["cwd"] == str(repo)
    assert "worker-said-42" in str(result["body"])  # the report carries the output's tail
    path = delegation_result.results_dir() / f"{short}.json"
    assert path.stat().st_mode & 0o077 == 0
    [message] = [m for m in mail.list_messages(paths.repo_slug(repo)) if m.from_short == short]
    assert message.to == mail.OPERATOR and message.from_agent == "zirv"
    assert not message.visible_to("claude", "abcd1234")  # no agent pane is handed it
    # The operator's inbox (a plain terminal) reads it.
    inbox = zirv(["ctx", "inbox"], repo)
    assert inbox.returncode == 0, inbox.stderr
    assert f"inline run {short} (shell, {repo}) ended with exit code 3" in inbox.stdout
    assert "worker-said-42" in inbox.stdout


def test_inline_run_from_a_pane_is_mailed_to_that_pane(repo: Path) -> None:
    parent = "pare1234-0000-0000-0000-000000000000"
    got = zirv(["agent", "shell", "x", "--json"], repo, stdin="exit 0\n",
               ZIRV_CTX_SESSION=parent)  # fmt: skip
    assert got.returncode == 0, got.stderr
    short = json.loads(got.stdout)["session"]
    assert stored(short)["requested_by"] == "pare1234"
    mails = [m for m in mail.list_messages(paths.repo_slug(repo)) if m.from_short == short]
    assert [m.to_short for m in mails] == ["pare1234"]
    assert mails[0].from_agent == "zirv" and "ended with exit code 0" in mails[0].body


def test_dashboard_pane_run_is_recorded_and_mailed(repo: Path) -> None:
    with live_dashboard(repo) as (dash, intake):
        orch = dash.panes[0]
        channel = private_channel(intake, orch.short)
        # The task fails at once (exit 3): the one report is the ended one. A task
        # that first finished would settle, and the settled report may win the race.
        proc = subprocess.Popen(
            [sys.executable, "-m", "zirv_dash.cli.main", "agent", "demo", "/fail", "--json"],
            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=zirv_env({"ZIRV_CTX_SESSION": orch.session_id,
                          "ZIRV_CTX_DASH_REQUESTS": str(channel)}),
        )  # fmt: skip
        drive(dash, intake, lambda: proc.poll() is not None, timeout=30)
        out, err = proc.communicate()
        assert proc.returncode == 0, err
        receipt = json.loads(out)
        assert receipt["mode"] == "dashboard_pane" and receipt["model"] == "demo-standard"
        pane = dash.pane_by_short(receipt["session"])
        assert pane is not None
        drive(dash, intake, lambda: not pane.alive and pane.short in intake.reported)
        result = stored(pane.short)
        assert result["mode"] == "dashboard_pane" and result["requested_by"] == orch.short
        assert result["harness"] == "demo" and result["outcome"] == "ended"
        assert "demo failure requested" in str(result["body"])
        mails = [m for m in mail.list_messages(dash.slug) if m.to_short == orch.short]
        assert len(mails) == 1 and mails[0].body.startswith(f"pane {pane.short} (demo, ")


def test_a_result_that_cannot_be_stored_never_stops_the_run(repo: Path, tmp_path: Path) -> None:
    # The logs directory is a file: the run still ends with its own code and says why.
    state = Path(os.environ["ZIRV_CTX_STATE_DIR"])
    state.mkdir(parents=True, exist_ok=True)
    (state / "logs").write_text("not a directory")
    started = time.monotonic()
    got = zirv(["agent", "shell", "x"], repo, stdin="exit 4\n")
    assert got.returncode == 4
    assert "could not store the result" in got.stderr
    assert time.monotonic() - started < 30


def test_the_output_tee_passes_everything_through_and_keeps_a_bounded_tail(tmp_path: Path) -> None:
    from zirv_dash.panes.output_tail import KEEP_BYTES, OutputTee

    sink = tmp_path / "sink"
    with sink.open("wb") as out:
        tee = OutputTee(out.fileno())
        payload = b"".join(b"line %06d \x1b[31mred\x1b[0m\r\n" % i for i in range(60_000))
        view = memoryview(payload)
        while view:
            view = view[os.write(tee.fd, view[:65536]) :]
        tee.close()
    assert sink.read_bytes() == payload  # every byte, in order
    assert len(tee.kept()) <= KEEP_BYTES
    tail = tee.tail(columns=80, rows=24)
    assert tail.splitlines()[-1] == "line 059999 red" and len(tail.encode()) <= 2048


def test_dashboard_pane_from_a_plain_terminal_reports_to_the_operator(repo: Path) -> None:
    """`zirv agent` from a terminal that is no pane, into a live dashboard: the
    pane's outcome is recorded and mailed to the operator's inbox."""
    with live_dashboard(repo) as (dash, intake):
        # The task fails at once (exit 3): the one report is the ended one. A task
        # that first finished would settle, and the settled report may win the race.
        proc = subprocess.Popen(
            [sys.executable, "-m", "zirv_dash.cli.main", "agent", "demo", "/fail", "--json"],
            cwd=repo, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env=zirv_env({}),
        )  # fmt: skip
        drive(dash, intake, lambda: proc.poll() is not None, timeout=30)
        out, err = proc.communicate()
        assert proc.returncode == 0, err
        receipt = json.loads(out)
        assert receipt["mode"] == "dashboard_pane"
        pane = dash.pane_by_short(receipt["session"])
        assert pane is not None
        drive(dash, intake, lambda: not pane.alive and pane.short in intake.reported)
        result = stored(pane.short)
        assert result["requested_by"] == mail.OPERATOR and result["outcome"] == "ended"
        mails = [m for m in mail.list_messages(dash.slug) if m.to == mail.OPERATOR]
        assert len(mails) == 1 and mails[0].body.startswith(f"pane {pane.short} (demo, ")
