"""`zirv agent`: into a live (fake) dashboard, and inline without one."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.test_spawn import FakeDashboard, make_repo
from zirv_dash import paths
from zirv_dash.cli import agent as agent_cli
from zirv_dash.cli.agent import AgentArgs, UsageError, parse_args

NO_DASH = "zirv agent: no live dashboard -- running {} inline in this terminal"


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(tmp_path / "state"))
    return paths.state_dir()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "work" / "repo")


@pytest.fixture
def dash(state: Path, repo: Path) -> Iterator[FakeDashboard]:
    d = FakeDashboard(state, repo).start()
    yield d
    d.stop()
    assert d.crashed is None


def zirv(
    args: list[str],
    cwd: Path,
    state: Path,
    stdin: str = "",
    extra_env: dict[str, str] | None = None,
    top: bool = True,
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ZIRV_", "CLAUDE"))}
    env.update(
        ZIRV_CTX_STATE_DIR=str(state),
        ZIRV_HOME=str(state.parent / "home"),
        SHELL="/bin/sh",
        ZIRV_DEMO_WORK_SECS="0",
        ZIRV_DEMO_SPINNER="0",
        LINES="24",
        COLUMNS="80",
    )
    env.update(extra_env or {})
    verb = ["agent"] if top else ["ctx", "agent"]
    return subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", *verb, *args],
        cwd=cwd, env=env, input=stdin, capture_output=True, text=True, timeout=30,
    )  # fmt: skip


# --- argument parsing -------------------------------------------------------------------


def test_parse_args() -> None:
    a = parse_args(["codex", "fix it", "--model", "gpt-5", "--json", "--timeout-secs=60",
                    "--workdir", "../wt", "--", "--yolo", "-c", "x"])  # fmt: skip
    assert a == AgentArgs("codex", "fix it", model="gpt-5", workdir="../wt", json=True,
                          timeout_secs=60, flags=["--yolo", "-c", "x"])  # fmt: skip
    assert parse_args(["--json", "demo", "-"]).prompt == "-"
    assert parse_args(["demo", "p", "--force"]).force
    for bad in (
        ["demo"],
        ["demo", "a", "b"],
        ["demo", "p", "--model"],
        ["demo", "-x"],
        ["demo", "p", "--timeout-secs", "soon"],
        ["demo", "p", "--timeout-secs", "-1"],
    ):
        with pytest.raises(UsageError) as err:  # fmt: skip
            parse_args(bad)
        assert str(err.value)
    with pytest.raises(UsageError, match="^$"):
        parse_args(["--help"])


def test_receipt_omits_empty_fields() -> None:
    doc = json.loads(agent_cli.receipt(harness="demo", model=None, mode="inline",
                                       state="exited_no_report", exit_code=0, session="",
                                       workdir="/r", reason=None, errors=[]))  # fmt: skip
    assert doc == {"schema_version": 1, "harness": "demo", "mode": "inline",
                   "state": "exited_no_report", "exit_code": 0, "workdir": "/r"}  # fmt: skip


# --- inline -------------------------------------------------------------------------------


def test_inline_without_dashboard(state: Path, repo: Path) -> None:
    got = zirv(["shell", "say hi", "--json"], repo, state, stdin="echo from-child; exit 5\n")
    assert got.returncode == 5, got.stderr
    assert NO_DASH.format("shell") in got.stderr
    assert "from-child" in got.stderr  # --json keeps stdout for the receipt only
    doc = json.loads(got.stdout)
    assert doc["mode"] == "inline" and doc["state"] == "exited_no_report"
    assert doc["exit_code"] == 5 and doc["harness"] == "shell" and doc["workdir"] == str(repo)
    assert len(doc["session"]) == 8 and "reason" not in doc and "model" not in doc


def test_inline_child_env_is_headless(state: Path, repo: Path) -> None:
    script = (
        'echo "H=$ZIRV_CTX_HEADLESS P=$ZIRV_CTX_PARENT_SESSION '
        'D=${ZIRV_CTX_DASH_REQUESTS:-none}"; '
        'echo "REC=$(cat "$ZIRV_CTX_STATE_DIR"/sessions/*.json | tr -d " \n")"; exit\n'
    )
    got = zirv(["shell", "x"], repo, state, stdin=script,
               extra_env={"ZIRV_CTX_SESSION": "pare1234-xyz",
                          "ZIRV_CTX_DASH_REQUESTS": str(state / "gone")})  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert "H=1 P=pare1234-xyz D=none" in got.stdout
    # While it ran, the inline worker was in the registry (verb exec); now it is gone.
    assert '"verb":"exec"' in got.stdout and '"agent":"shell"' in got.stdout
    assert list((state / "sessions").glob("*.json")) == []
    assert "inherited dashboard channel" in got.stderr


@pytest.mark.skipif(
    importlib.util.find_spec("zirv_dash.harnesses.demo_agent") is None,
    reason="demo agent not built yet",
)
def test_demo_inline(state: Path, repo: Path) -> None:
    got = zirv(["demo", "say hi"], repo, state, stdin="/quit\n")
    assert got.returncode == 0, got.stderr
    assert NO_DASH.format("demo") in got.stderr
    assert "say hi" in got.stdout and "bye" in got.stdout


def test_ctx_agent_alias_and_stdin_prompt(state: Path, repo: Path) -> None:
    # Inline, trailing flags are carried (this is the caller's own terminal).
    got = zirv(["shell", "-", "--json", "--", "-c", "echo ran; exit 0"], repo, state,
               stdin="the prompt\n", top=False)  # fmt: skip
    doc = json.loads(got.stdout)
    assert doc["mode"] == "inline" and doc["exit_code"] == 0
    assert "ran" in got.stderr


def test_unknown_harness_and_bad_model(state: Path, repo: Path) -> None:
    got = zirv(["nope", "x", "--json"], repo, state)
    assert got.returncode == 2
    doc = json.loads(got.stdout)
    assert doc["state"] == "launch_failed" and "unknown harness" in doc["reason"]
    got = zirv(["demo", "x", "--model=--evil"], repo, state)
    assert got.returncode == 2 and "looks like a flag" in got.stderr


def test_disabled_adapter_inline(state: Path, repo: Path) -> None:
    got = zirv(["shell", "x", "--json"], repo, state,
               extra_env={"ZIRV_AGENT_SHELL_ENABLED": "false"})  # fmt: skip
    assert got.returncode == 1
    assert "ZIRV_AGENT_SHELL_ENABLED" in json.loads(got.stdout)["reason"]


def test_timeout_inline(state: Path, repo: Path) -> None:
    got = zirv(["shell", "-", "--timeout-secs", "1", "--json", "--", "-c", "exec sleep 30"],
               repo, state, stdin="wait\n")  # fmt: skip
    assert got.returncode == 124
    assert json.loads(got.stdout)["reason"] == "outran its --timeout-secs"


# --- into a dashboard -------------------------------------------------------------------


def test_spawned_in_dashboard(dash: FakeDashboard, state: Path, repo: Path) -> None:
    got = zirv(["demo", "say hi"], repo, state)
    assert got.returncode == 0, got.stderr
    (pane,) = dash.spawned
    req = pane.request
    assert req.handle is not None and req.mode == "writing"
    assert got.stdout == f"spawned in dashboard as {pane.short} (delegation {req.handle})\n"
    assert (req.agent, req.prompt, req.cwd, req.requested_by) == ("demo", "say hi", str(repo),
                                                                  "unknown")  # fmt: skip
    assert req.interactive is False and req.parent_session is None
    assert pane.env == {"ZIRV_CTX_HEADLESS": "1"}


def test_spawned_json_receipt_from_a_subdir(dash: FakeDashboard, state: Path, repo: Path) -> None:
    sub = repo / "src" / "deep"
    sub.mkdir(parents=True)
    got = zirv(["demo", "say hi", "--json", "--model", "demo-deep", "--force", "--", "--yolo"],
               sub, state)  # fmt: skip
    assert got.returncode == 0, got.stderr
    (pane,) = dash.spawned
    assert json.loads(got.stdout) == {
        "schema_version": 1, "harness": "demo", "model": "demo-deep", "mode": "dashboard_pane",
        "state": "launched", "session": pane.short, "workdir": str(repo),
        "handle": pane.request.handle,
    }  # fmt: skip
    assert "--force and trailing flags are not carried over" in got.stderr
    assert pane.request.flags == [] and pane.request.model == "demo-deep"
    assert pane.request.cwd == str(repo)
    assert "--yolo" not in pane.argv


def test_policy_refusal_fails(dash: FakeDashboard, state: Path, repo: Path) -> None:
    got = zirv(["codex", "x", "--json"], repo, state)
    assert got.returncode == 1
    doc = json.loads(got.stdout)
    assert doc["mode"] == "dashboard_pane" and doc["state"] == "launch_failed"
    assert doc["reason"] == "adapter codex is disabled in test"
    assert "adapter codex is disabled in test" in got.stderr
    assert dash.spawned == []


def test_channel_refusal_falls_back_inline(
    dash: FakeDashboard, state: Path, tmp_path: Path
) -> None:
    other = make_repo(tmp_path / "elsewhere" / "other")
    got = zirv(["shell", "x", "--json"], other, state, stdin="exit 6\n")
    assert got.returncode == 6, got.stderr
    assert "this dashboard only spawns panes in its own repo" in got.stderr
    assert "; running headless" in got.stderr
    assert "zirv agent: running shell inline in this terminal" in got.stderr
    assert json.loads(got.stdout)["mode"] == "inline"


def test_inherited_pane_channel_proves_the_parent(
    dash: FakeDashboard, state: Path, repo: Path
) -> None:
    chan = dash.add_pane("orch0001", "orchestrator")
    got = zirv(["demo", "sub task"], repo, state,
               extra_env={"ZIRV_CTX_DASH_REQUESTS": str(chan),
                          "ZIRV_CTX_SESSION": "orch0001-aaaa-bbbb"})  # fmt: skip
    assert got.returncode == 0, got.stderr
    (pane,) = dash.spawned
    assert pane.channel == chan and pane.parent == "orch0001"
    assert pane.request.requested_by == "orch0001"
    assert pane.request.parent_session == "orch0001-aaaa-bbbb"


def test_worker_pane_cannot_delegate(dash: FakeDashboard, state: Path, repo: Path) -> None:
    chan = dash.add_pane("wrk00001", "worker", "orch0001")
    got = zirv(["demo", "sub task"], repo, state,
               extra_env={"ZIRV_CTX_DASH_REQUESTS": str(chan),
                          "ZIRV_CTX_SESSION": "wrk00001-aaaa"})  # fmt: skip
    assert got.returncode == 1
    assert "a worker may not delegate onward (delegation depth cap: 2)" in got.stderr


LOGIN_SCREEN = """\
import sys, time
sys.stdout.write("\\x1b[2J\\x1b[H")
print("Please log in with your Factory account to continue")
print()
print("> Login")
sys.stdout.flush()
time.sleep(120)
"""
"""droid's login screen (the `droid-login` needs-you pattern), then nothing."""


def test_headless_run_at_a_needs_you_screen_ends_with_needs_you(
    state: Path, repo: Path, tmp_path: Path
) -> None:
    """No terminal to answer it: a login screen that persists ends the run (it
    used to wait for ever) with `state: needs_you` and a non-zero exit."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "droid"
    fake.write_text(f"#!{sys.executable}\n{LOGIN_SCREEN}")
    fake.chmod(0o755)
    path = f"{bin_dir}:{os.environ.get('PATH', '')}"
    got = zirv(["droid", "fix it", "--json", "--needs-you-secs", "1"], repo, state,
               extra_env={"PATH": path})  # fmt: skip
    assert got.returncode == 75, got.stderr
    doc = json.loads(got.stdout)
    assert doc["state"] == "needs_you" and doc["exit_code"] == 75
    assert doc["reason"].startswith("needs login for 1s with no terminal to answer it")
    assert list((state / "sessions").glob("*.json")) == []  # unregistered on the way out


def test_needs_you_secs_is_parsed() -> None:
    assert parse_args(["demo", "x"]).needs_you_secs == 30
    assert parse_args(["demo", "x", "--needs-you-secs=0"]).needs_you_secs == 0
    with pytest.raises(UsageError):
        parse_args(["demo", "x", "--needs-you-secs", "soon"])
