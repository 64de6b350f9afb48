"""Exactly-once outcomes: persisted first, notified second. A process killed
(-9) between the two leaves the outcome for the next dashboard to deliver, once;
a consuming `zirv ctx inbox` drops an exact repeat of an identity it consumed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.intakehelpers import live_dashboard
from tests.test_spawn import make_repo
from zirv_dash import paths
from zirv_dash.delegation import outcomes, records
from zirv_dash.mail import mailbox as mail

KILLED_BETWEEN = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from zirv_dash.delegation import outcomes, records
    repo = Path(sys.argv[1])
    r = records.create(repo, harness="demo", owner="operator", workdir=str(repo))
    records.update(repo, r.handle, lambda x: records.add_attempt(x, "aaaa1111", "s-1", "inline"))
    outcomes.persist(repo, r.handle, "ended", exit_code=0, tail="REPORT-LINE-42",
                     result_path=None, to="operator")
    print(r.handle, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)  # before the mail is stored
    """
)


DASHBOARD_KILLED = textwrap.dedent(
    """
    import os, signal, sys
    from pathlib import Path
    from tests.intakehelpers import ask, drive, live_dashboard, request
    from zirv_dash.delegation import result as delegation_result

    def killed(*args, **kwargs):  # the moment the report would be mailed
        os.kill(os.getpid(), signal.SIGKILL)

    delegation_result.mail_report = killed
    repo = Path(sys.argv[1])
    with live_dashboard(repo) as (dash, intake):
        body = request(repo, agent="shell", requested_by="unknown")  # reports to the operator
        ack = ask(dash, intake, intake.channel.requests, body)
        print(ack.handle, flush=True)
        dash.pane_by_short(ack.short).send(b"echo REPORT-LINE-42; exit 3\\r")
        drive(dash, intake, lambda: False, timeout=30)
    """
)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "work" / "repo")


def inbox(repo: Path) -> str:
    env = {k: v for k, v in os.environ.items() if k != "ZIRV_CTX_SESSION"}
    got = subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "ctx", "inbox"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    return got.stdout


def reports(repo: Path) -> list[mail.Message]:
    return [m for m in mail.list_messages(paths.repo_slug(repo)) if "REPORT-LINE-42" in m.body]


def test_kill_9_between_persist_and_notify_delivers_exactly_once(repo: Path) -> None:
    got = subprocess.run(
        [sys.executable, "-c", KILLED_BETWEEN, str(repo)],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert got.returncode == -signal.SIGKILL, got.stderr
    handle = got.stdout.strip()
    ident = f"{handle}:1:ended"
    assert reports(repo) == []  # persisted, never notified
    assert records.read(repo, handle).deliveries[0].published_at is None
    with live_dashboard(repo) as (dash, _intake):
        assert "previous dashboard" in (dash.current_notice() or "")
    (sent,) = reports(repo)
    assert outcomes.identity_of(sent.body) == ident
    assert records.read(repo, handle).deliveries[0].published_at is not None
    with live_dashboard(repo):
        pass
    assert len(reports(repo)) == 1  # the next start has nothing left to send
    # A repeat of the same identity (a kill after storing, before marking) …
    mail.store(paths.repo_slug(repo), sent.body, from_session="s-1", from_agent="zirv",
               to=mail.OPERATOR)  # fmt: skip
    first = inbox(repo)
    assert first.count("REPORT-LINE-42") == 1 and "1 repeat(s)" in first
    assert "delivered after a restart" in first
    second = inbox(repo)
    assert "REPORT-LINE-42" not in second and "no unread mail" in second
    assert records.read(repo, handle).deliveries[0].consumed_at is not None


def test_a_real_dashboard_killed_before_mailing_is_delivered_once_on_the_next_start(
    repo: Path,
) -> None:
    env = {**os.environ, "SHELL": "/bin/sh", "PS1": "$ "}
    got = subprocess.run(
        [sys.executable, "-c", DASHBOARD_KILLED, str(repo)],
        cwd=Path(__file__).resolve().parents[1], env=env,
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert got.returncode == -signal.SIGKILL, got.stderr[-2000:]
    handle = got.stdout.strip()
    record = records.read(repo, handle)
    assert record.outcome is not None  # persisted before the kill …
    ident = record.outcome.identity
    assert [d.identity for d in record.deliveries] == [ident]
    assert record.deliveries[0].published_at is None  # … never notified
    slug = paths.repo_slug(repo)
    assert [m for m in mail.list_messages(slug) if handle in m.body] == []
    for _ in range(2):
        with live_dashboard(repo):
            pass
    sent = [m for m in mail.list_messages(slug) if ident in m.body]
    assert len(sent) == 1 and outcomes.identity_of(sent[0].body) == ident
    first, second = inbox(repo), inbox(repo)
    assert first.count(ident) == 1 and ident not in second
    assert "delivered after a restart" in first


def test_a_report_no_record_accounts_for_is_still_shown(repo: Path) -> None:
    body = outcomes.with_identity("pane x ended\n\nREPORT-LINE-42", "d-0123456789ab:1:ended")
    for _ in range(2):
        mail.store(paths.repo_slug(repo), body, from_session="s-1", from_agent="zirv",
                   to=mail.OPERATOR)  # fmt: skip
    shown = inbox(repo)
    assert shown.count("REPORT-LINE-42") == 2  # cannot account for it: both shown


def test_persist_is_idempotent_per_identity(repo: Path) -> None:
    r = records.create(repo, harness="demo", owner="operator", workdir=str(repo))
    records.update(repo, r.handle, lambda x: records.add_attempt(x, "bbbb2222", "s-2", "inline"))
    _, ident = outcomes.persist(repo, r.handle, "settled", exit_code=None, tail="t",
                                result_path=None, to="operator")  # fmt: skip
    _, again = outcomes.persist(repo, r.handle, "settled", exit_code=None, tail="t",
                                result_path=None, to="operator")  # fmt: skip
    assert ident == f"{r.handle}:1:settled" and again is None
    assert len(records.read(repo, r.handle).deliveries) == 1
    assert os.getpid() == records.read(repo, r.handle).host_pid


def test_an_earlier_attempts_late_end_leaves_the_current_one_alone(repo: Path) -> None:
    r = records.create(repo, harness="demo", owner="operator", workdir=str(repo))
    records.update(repo, r.handle, lambda x: records.add_attempt(x, "aaaa0001", "s-1", "x"))
    records.update(repo, r.handle, lambda x: records.add_attempt(x, "aaaa0002", "s-2", "x"))
    _, ident = outcomes.persist(repo, r.handle, "ended", exit_code=9, tail="old",
                                result_path=None, to="operator", short="aaaa0001")  # fmt: skip
    now = records.read(repo, r.handle)
    assert ident is None and now.state == "running" and now.outcome is None
    assert now.attempts[0].exit_code == 9 and now.attempts[1].ended_at is None
