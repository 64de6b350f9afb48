"""Words the user reads: `zirv agent` errors, the nested-session refusal, mail
senders, and the inspector's branch / model / status rows."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from screens.mail import MailTarget, recipient_text, sender_text
from tests.intakehelpers import close, drive
from zirv_dash.config.layers import load_settings
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.intake import Intake, format_sections, inspect_sections
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes.session_env import nesting_refusal
from zirv_dash.repo import gitinfo

pytestmark = pytest.mark.timeout(60)


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(cwd), "-c", "user.name=t", "-c", "user.email=t@t", *args],
        check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = (tmp_path / "work" / "repo").resolve()
    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "trunk")
    git(path, "commit", "-q", "--allow-empty", "-m", "first")
    return path


# --- zirv agent and the nesting guard -----------------------------------------------------


def test_zirv_agent_errors_name_zirv_agent(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ZIRV_CTX_SESSION"}
    got = subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "agent", "nope", "x"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert got.returncode == 2
    assert got.stderr.startswith("zirv agent: unknown harness")
    assert "zirv ctx agent" not in got.stderr


def test_nested_refusal_shows_the_whole_socket_path() -> None:
    sock = "/tmp/zirv-state-for-someone/sessions/abcd1234.sock"
    text = nesting_refusal({"ZIRV_CTX_SOCKET": sock})
    assert text is not None and f"ZIRV_CTX_SOCKET={sock})" in text
    text = nesting_refusal({"ZIRV_CTX_SESSION": "abcdef12-3456", "ZIRV_CTX_SOCKET": sock})
    assert text is not None and f"(ZIRV_CTX_SESSION=abcdef12, ZIRV_CTX_SOCKET={sock})" in text
    hostile = nesting_refusal({"ZIRV_CTX_SOCKET": "/x\x1b[2J" + "y" * 500})
    assert hostile is not None and "\x1b" not in hostile and len(hostile) < 700


# --- mail senders ------------------------------------------------------------------------


def message(
    slug: str, from_session: str, from_agent: str, to_session: str | None = None
) -> mail.Message:
    return mail.store(slug, "hello there", from_session=from_session, from_agent=from_agent,
                      to_session=to_session)  # fmt: skip


def test_mail_sender_is_the_panes_label_and_short_id() -> None:
    pane = MailTarget("abcd1234", "demo", "abcd1234-0000", title="wrk demo")
    targets = [pane, MailTarget("orch5678", "claude", "orch5678-0000")]
    dash_session = "dash9999-0000"
    from_pane = message("-slug", pane.session, "demo", to_session="orch5678-0000")
    assert sender_text(from_pane, targets, dash_session) == "wrk demo · abcd1234"
    assert recipient_text(from_pane, targets) == "claude · orch5678"
    # The dashboard's own mail: its internal id matches no pane, so it is the operator.
    from_dash = message("-slug", "dash9999", "claude")
    assert sender_text(from_dash, targets, dash_session) == "operator"
    report = message("-slug", pane.session, "zirv")
    assert sender_text(report, targets, dash_session) == "zirv, for wrk demo · abcd1234"
    gone = message("-slug", "gone0000-1", "codex")
    assert sender_text(gone, targets, dash_session) == "codex/gone0000"
    assert pane.label == "pane abcd1234 (wrk demo)"


# --- branch from .git/HEAD ---------------------------------------------------------------


def test_branch_of_a_repo_a_subdirectory_and_a_linked_worktree(repo: Path, tmp_path: Path) -> None:
    (repo / "sub" / "deeper").mkdir(parents=True)
    assert gitinfo.branch(repo) == "trunk"
    assert gitinfo.branch(repo / "sub" / "deeper") == "trunk"
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "feature/x", str(linked))
    assert (linked / ".git").is_file()  # `gitdir: …`
    assert gitinfo.branch(linked) == "feature/x"
    sha = git(repo, "rev-parse", "HEAD").strip()
    git(repo, "checkout", "-q", "--detach")
    assert gitinfo.branch(repo) == f"detached at {sha[:7]}"
    assert gitinfo.branch(tmp_path / "nowhere") is None
    assert gitinfo.branch(None) is None


def test_branch_never_follows_symlinks_or_blocks(tmp_path: Path, repo: Path) -> None:
    linked = tmp_path / "via-link"
    linked.mkdir()
    (linked / ".git").symlink_to(repo / ".git")
    assert gitinfo.branch(linked) is None
    fifo_repo = tmp_path / "fifo"
    (fifo_repo / ".git").mkdir(parents=True)
    os.mkfifo(fifo_repo / ".git" / "HEAD")
    started = time.monotonic()
    assert gitinfo.branch(fifo_repo) is None
    assert time.monotonic() - started < 2
    huge = tmp_path / "huge"
    (huge / ".git").mkdir(parents=True)
    (huge / ".git" / "HEAD").write_text("ref: refs/heads/" + "b" * 100_000)
    shown = gitinfo.branch(huge)
    assert shown is not None and len(shown) <= 200


# --- the inspector -----------------------------------------------------------------------


def test_inspector_shows_branch_demo_model_and_each_fact_once(repo: Path) -> None:
    os.environ["ZIRV_DEMO_WORK_SECS"] = "0"
    dash = Dashboard(load_settings(repo), repo, manage_state=True)
    intake = Intake(dash)
    intake.start()
    try:
        pane = dash.spawn("demo", prompt="hi")
        lines = format_sections(inspect_sections(intake, pane))
        assert f"{'branch':<12}trunk" in lines
        assert f"{'model':<12}demo-standard" in lines  # what its banner says
        drive(dash, intake, lambda: "demo-standard" in "".join(pane.model_view.lines()))
        pane.send(b"/fail\r")
        drive(dash, intake, lambda: not pane.alive)
        status = dict(inspect_sections(intake, pane))["status"]
        keys = [key for key, _ in status]
        assert len(keys) == len(set(keys)), status  # no "since" twice
        assert "since" not in keys and {"started", "ended", "exit code"} <= set(keys)
        assert [v for _, v in status].count("3") == 1
        assert not any("exit 3" in v for _, v in status), status  # the code once
    finally:
        os.environ.pop("ZIRV_DEMO_WORK_SECS", None)
        close(dash)
        intake.on_quit()


def test_ctx_worktrees_is_a_verb_with_a_help_line(repo: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ZIRV_CTX_SESSION"}
    got = subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "ctx", "worktrees"],
        cwd=repo, env=env, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert got.stdout.startswith(f"no pane worktrees for {repo}")
    helped = subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "--help"], env=env, capture_output=True,
        text=True, timeout=30,
    )  # fmt: skip
    assert "zirv ctx worktrees" in helped.stdout


def test_the_handover_hint_names_a_command_that_works(tmp_path: Path) -> None:
    """`zirv models` / handover say `zirv ctx config set handover.<agent>.<tier> <model>`:
    that command exists, and what it sets is what `zirv models` then resolves."""
    from zirv_dash.harnesses import catalogue

    hint = catalogue.config_hint("opencode", "deep")
    assert "`zirv ctx config set handover.opencode.deep <model>`" in hint
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZIRV_CTX_")}
    env["ZIRV_HOME"] = str(tmp_path / "home")

    def zirv(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "zirv_dash.cli.main", *args],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=30,
        )  # fmt: skip

    done = zirv("ctx", "config", "set", "handover.opencode.deep", "anthropic/claude-opus-5")
    assert done.returncode == 0, done.stderr
    shown = zirv("models", "opencode")
    assert "deep      anthropic/claude-opus-5 *" in shown.stdout
    assert "override: handover.opencode.deep in ~/.zirv/ctx.toml" in shown.stdout
