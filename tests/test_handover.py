"""Handover core: request/ack files, packet, git summary, transcript tails, swap plans."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from zirv_dash.config.layers import AdapterGate
from zirv_dash.handover import files as handover_files
from zirv_dash.handover import packet as handover_packet
from zirv_dash.handover import plan as handover_plan
from zirv_dash.handover import transcript as handover_transcript
from zirv_dash.handover.files import (
    HandoverAck,
    HandoverFileError,
    HandoverRefused,
    HandoverRequest,
)
from zirv_dash.handover.packet import build_packet
from zirv_dash.handover.plan import plan_swap

SID = "3f2a9c1e-5b7d-4e8f-9a0b-1c2d3e4f5a6b"
SHORT = "3f2a9c1e"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Private state/operator/home dirs, a repo cwd, and a PATH with only git on it."""
    for name in list(os.environ):
        if name.startswith(("ZIRV_CTX_HANDOVER_", "ZIRV_AGENT_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("ZIRV_HOME", str(tmp_path / "zirv-home"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    monkeypatch.chdir(repo)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.setenv("SHELL", "/bin/sh")
    return bin_dir


def install(bin_dir: Path, name: str) -> None:
    exe = bin_dir / name
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)


def sessions(tmp_path: Path) -> Path:
    return tmp_path / "state" / "sessions"


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- request / ack files ------------------------------------------------------------


def test_request_round_trip_is_private_and_claimed_once(tmp_path: Path) -> None:
    req = HandoverRequest("claude", "opus", force=True, requested_at=1700000000)
    path = handover_files.write_request(SHORT, req)
    assert path == sessions(tmp_path) / f"{SHORT}.handover-req"
    assert mode_of(path) == 0o600 and mode_of(path.parent) == 0o700
    on_disk = json.loads(path.read_text())
    assert set(on_disk) == {
        "target_agent",
        "target_model",
        "force",
        "requested_at",
        "interactive",
        "automatic",
        "generation",
        "structural_only",
        "resume_session",
        "target_runtime",
        "target_route",
    }
    assert handover_files.pending_request_shorts() == [SHORT]
    assert handover_files.claim_request(SHORT) == req
    assert not path.exists()
    assert handover_files.claim_request(SHORT) is None
    assert list(sessions(tmp_path).iterdir()) == []  # no claim leftovers


def test_request_tolerates_missing_and_unknown_fields(tmp_path: Path) -> None:
    sessions(tmp_path).mkdir(parents=True)
    (sessions(tmp_path) / f"{SHORT}.handover-req").write_text(
        json.dumps({"target_agent": "codex", "future_field": [1], "requested_at": 5.0})
    )
    req = handover_files.claim_request(SHORT)
    assert req == HandoverRequest("codex", None, requested_at=5)


@pytest.mark.parametrize(
    "content",
    [
        "not json at all",
        "",
        "[1, 2]",
        '{"target_model": "opus"}',
        '{"target_agent": "claude", "force": "yes"}',
        '{"target_agent": "claude", "generation": "3"}',
        b"\xff\xfe\x00garbage",
    ],
)
def test_garbage_request_is_removed_and_reported(tmp_path: Path, content: str | bytes) -> None:
    path = sessions(tmp_path) / f"{SHORT}.handover-req"
    path.parent.mkdir(parents=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    with pytest.raises(HandoverFileError, match=r"handover-req"):
        handover_files.claim_request(SHORT)
    assert not path.exists()
    assert handover_files.claim_request(SHORT) is None


def test_ack_round_trip_and_garbage(tmp_path: Path) -> None:
    ack = HandoverAck(True, "", "demo", "demo-standard", "shell", None, stored=False)
    path = handover_files.write_ack(SHORT, ack)
    assert json.loads(path.read_text()) == {
        "ok": True,
        "reason": "",
        "from_agent": "demo",
        "from_model": "demo-standard",
        "to_agent": "shell",
        "to_model": None,
        "stored": False,
        "failed": False,
    }
    assert mode_of(path) == 0o600
    assert handover_files.claim_ack(SHORT) == ack
    assert handover_files.claim_ack(SHORT) is None
    path.write_text('{"ok": "sure"}')
    with pytest.raises(HandoverFileError, match="malformed handover ack"):
        handover_files.claim_ack(SHORT)
    assert not path.exists()


def test_oversized_file_is_garbage(tmp_path: Path) -> None:
    path = sessions(tmp_path) / f"{SHORT}.handover-ack"
    path.parent.mkdir(parents=True)
    path.write_text('{"ok": true, "reason": "' + "x" * 70_000 + '"}')
    with pytest.raises(HandoverFileError, match="larger than"):
        handover_files.claim_ack(SHORT)


def test_withdraw_and_clear(tmp_path: Path) -> None:
    handover_files.write_request(SHORT, HandoverRequest("demo"))
    assert handover_files.withdraw_request(SHORT)
    assert not handover_files.withdraw_request(SHORT)
    handover_files.write_ack(SHORT, HandoverAck(False, "old"))
    handover_files.clear_ack(SHORT)
    handover_files.clear_ack(SHORT)
    assert handover_files.claim_ack(SHORT) is None


@pytest.mark.parametrize("bad", ["../etc", "a/b", "", "abc.def"])
def test_short_ids_cannot_escape_the_sessions_dir(bad: str) -> None:
    with pytest.raises(ValueError, match="invalid session short id"):
        handover_files.request_path(bad)


# --- packet -------------------------------------------------------------------------


def test_packet_sections_and_cleaning() -> None:
    packet = build_packet(
        "Fix the flaky test in tests/test_io.py",
        "/work/repo",
        ["$ pytest", "\x1b[31m1 failed\x1b[0m", ""],
        ["older line"],
        ["user: fix it", "assistant: looking"],
        "branch: main\nchanges: none (clean)",
        from_agent="claude",
        from_model="opus",
    )
    assert packet.startswith("# Handover notes (zirv)")
    assert "claude (opus)" in packet
    for section in ("## Task", "## Working directory", "## Transcript tail", "## Recent terminal"):
        assert section in packet
    assert "Fix the flaky test" in packet and "/work/repo" in packet and "branch: main" in packet
    assert "1 failed" in packet and "\x1b" not in packet
    assert packet.index("older line") < packet.index("$ pytest")


def test_packet_without_task_or_context() -> None:
    packet = build_packet(None, "/x", [], [], [], "")
    assert "(not recorded" in packet
    assert "## Transcript tail" not in packet and "## Recent terminal" not in packet


def test_packet_is_bounded_and_keeps_the_newest_lines() -> None:
    screen = [f"screen line {i} " + "é" * 50 for i in range(5000)]
    scrollback = [f"scroll {i} " + "x" * 300 for i in range(5000)]
    transcript = [f"assistant: step {i} " + "y" * 500 for i in range(2000)]
    packet = build_packet("t" * 100_000, "/repo", screen, scrollback, transcript, "g" * 50_000)
    assert len(packet.encode("utf-8")) <= handover_packet.MAX_PACKET_BYTES
    assert "screen line 4999" in packet
    assert "step 1999" in packet
    assert "earlier lines omitted" in packet
    assert "(truncated)" in packet
    small = build_packet("task", "/repo", screen, [], transcript, "", max_bytes=4096)
    assert len(small.encode("utf-8")) <= 4096


def test_packet_strips_control_bytes_that_could_drive_a_terminal() -> None:
    nasty = "\x1b]52;c;ZXZpbA==\x07ok\x00\x07\x9b2J\rend"
    packet = build_packet(nasty, "/r", [nasty], [], [nasty], nasty)
    assert not any(ord(c) < 32 and c not in "\n\t" for c in packet)
    assert "\x9b" not in packet and "ZXZpbA" not in packet


# --- git status -----------------------------------------------------------------------


def git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["/usr/bin/env", "git", "-C", str(cwd), *args],
        check=True,
        capture_output=True,
        env={
            **os.environ,
            "PATH": "/usr/bin:/bin",
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@example.invalid",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@example.invalid",
        },
    )


def test_git_status_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    repo = tmp_path / "g"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "trunk")
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt")
    git(repo, "commit", "-q", "-m", "first commit")
    (repo / "a.txt").write_text("two\n")
    (repo / "new.txt").write_text("n\n")
    summary = handover_packet.git_status_summary(repo)
    assert "branch: trunk" in summary
    assert "first commit" in summary
    assert "changes: 2 path(s)" in summary
    assert "a.txt" in summary and "new.txt" in summary
    assert len(summary.encode()) <= 2048


def test_git_status_summary_never_raises(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "not a repository" in handover_packet.git_status_summary(tmp_path / "missing")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    plain = tmp_path / "plain"
    plain.mkdir()
    assert "not a repository" in handover_packet.git_status_summary(plain)


# --- transcripts ----------------------------------------------------------------------


def write_jsonl(path: Path, rows: list[object], garbage: bool = True) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [json.dumps(r) for r in rows]
    if garbage:
        lines.insert(1, "{not json")
    path.write_text("\n".join(lines) + "\n")


def test_claude_transcript_tail(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cwd = "/work/my_repo.x"
    rows: list[object] = [
        {"type": "summary", "summary": "s"},
        {"type": "user", "message": {"role": "user", "content": "please fix the bug"}},
        {
            "type": "assistant",
            "message": {
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Looking at it."},
                    {"type": "tool_use", "name": "Bash", "input": {"command": "pytest -q"}},
                ],
            },
        },
        {
            "type": "user",
            "message": {"role": "user", "content": [{"type": "tool_result", "content": "ok"}]},
        },
        {"type": "user", "isMeta": True, "message": {"role": "user", "content": "meta"}},
        {"type": "assistant", "message": {"role": "assistant", "content": "Done \x1b[1m!"}},
    ]
    write_jsonl(home / ".claude" / "projects" / "-work-my-repo-x" / f"{SID}.jsonl", rows)
    tail = handover_transcript.transcript_tail("claude", SID, cwd, 10, home=home)
    assert tail == [
        "user: please fix the bug",
        'assistant: Looking at it. [tool Bash] {"command": "pytest -q"}',
        "assistant: Done !",
    ]
    assert handover_transcript.transcript_tail("claude", SID, cwd, 1, home=home) == [
        "assistant: Done !"
    ]
    assert handover_transcript.transcript_tail("claude", "0000", cwd, 10, home=home) == []
    assert handover_transcript.transcript_tail("claude", None, cwd, 10, home=home) == []
    assert handover_transcript.transcript_tail("gemini", SID, cwd, 10, home=home) == []


def test_claude_transcript_found_by_session_under_another_slug(tmp_path: Path) -> None:
    home = tmp_path / "home"
    row = {"type": "user", "message": {"role": "user", "content": "hi"}}
    write_jsonl(home / ".claude" / "projects" / "-odd-slug" / f"{SID}.jsonl", [row], False)
    assert handover_transcript.transcript_tail("claude", SID, "/elsewhere", 5, home=home) == [
        "user: hi"
    ]


def codex_rows(cwd: str, said: str) -> list[object]:
    return [
        {"type": "session_meta", "payload": {"id": "x", "cwd": cwd}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "<environment_context>cwd</…>"}],
            },
        },
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": said}],
            },
        },
        {
            "type": "response_item",
            "payload": {"type": "function_call", "name": "shell", "arguments": '{"cmd":"ls"}'},
        },
        {"type": "event_msg", "payload": {"type": "agent_message", "message": "dup"}},
        {
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "listed"}],
            },
        },
    ]


def test_codex_rollout_tail_matches_cwd(tmp_path: Path) -> None:
    home = tmp_path / "home"
    day = home / ".codex" / "sessions" / "2026" / "11" / "29"
    mine = day / "rollout-2026-11-29T10-00-00-aaaa.jsonl"
    other = day / "rollout-2026-11-29T11-00-00-bbbb.jsonl"
    write_jsonl(mine, codex_rows("/work/repo", "refactor io"))
    write_jsonl(other, codex_rows("/work/other", "unrelated"))
    os.utime(mine, (1_000_000, 1_000_000))  # `other` is newer but in another repo
    tail = handover_transcript.transcript_tail("codex", None, "/work/repo", 10, home=home)
    assert tail == [
        "user: refactor io",
        'assistant: [tool shell] {"cmd":"ls"}',
        "assistant: listed",
    ]
    assert handover_transcript.transcript_tail("codex", None, "/work/none", 10, home=home) == []
    assert handover_transcript.transcript_tail("codex", None, "/work/repo", 10, home=tmp_path) == []


# --- swap plans -----------------------------------------------------------------------


def test_same_harness_resumes_claude_without_a_packet(isolated: Path, tmp_path: Path) -> None:
    install(isolated, "claude")
    packet_dir = tmp_path / "packets"
    plan = plan_swap("claude", "sonnet", SID, "claude", "opus", "PACKET", packet_dir)
    assert plan.mode == "resume"
    assert plan.argv[:5] == ["claude", "--resume", SID, "--model", "opus"]
    assert "PACKET" not in " ".join(plan.argv)
    assert plan.packet_file is None and plan.env_extra == {}
    assert plan.old_quit_sequence == b"/exit\r"
    assert not packet_dir.exists()


def test_other_harness_gets_the_packet_through_claude_system_prompt_file(
    isolated: Path, tmp_path: Path
) -> None:
    install(isolated, "claude")
    packet = build_packet("do the thing", "/r", ["screen"], [], [], "")
    plan = plan_swap("demo", "demo-standard", SID, "claude", "opus", packet, tmp_path / "pk")
    assert plan.mode == "system_prompt"
    assert plan.packet_file is not None
    assert plan.packet_file.read_text() == packet
    assert mode_of(plan.packet_file) == 0o600 and mode_of(plan.packet_file.parent) == 0o700
    flag = plan.argv.index("--append-system-prompt-file")
    assert plan.argv[flag + 1] == str(plan.packet_file)
    assert plan.argv[1] == handover_plan.KICKOFF_PROMPT
    assert "do the thing" not in " ".join(plan.argv)
    assert plan.env_extra == {handover_plan.PACKET_ENV: str(plan.packet_file)}
    assert plan.old_quit_sequence == b"/quit\r"


def test_codex_gets_the_packet_as_developer_instructions(isolated: Path, tmp_path: Path) -> None:
    install(isolated, "codex")
    plan = plan_swap("claude", "opus", SID, "codex", "gpt-5.6-sol", 'say "hi"\n', tmp_path / "p")
    assert plan.mode == "system_prompt"
    wanted = "developer_instructions=" + json.dumps('say "hi"\n')
    i = plan.argv.index(wanted)  # codex may carry other `-c` settings too
    assert plan.argv[i - 1] == "-c"
    assert plan.argv[plan.argv.index("--model") + 1] == "gpt-5.6-sol"
    assert plan.packet_file is None


def test_same_harness_without_resume_gets_the_packet_as_one_argv_element(tmp_path: Path) -> None:
    packet = "line one\nline two; rm -rf / $(boom)"
    plan = plan_swap("demo", "demo-cheap", SID, "demo", "demo-deep", packet, tmp_path / "p")
    assert plan.mode == "first_prompt"
    assert plan.argv[:3] == [sys.executable, "-m", "zirv_dash.harnesses.demo_agent"]
    assert plan.argv[3] == packet
    assert plan.argv[4:6] == ["--model", "demo-deep"]
    assert plan.packet_file is None


def test_shell_target_never_gets_the_packet_on_argv(tmp_path: Path) -> None:
    packet = build_packet("echo pwned; touch /tmp/owned", "/r", ["$ make"], [], ["user: x"], "")
    plan = plan_swap("demo", "demo-standard", SID, "shell", "–", packet, tmp_path / "p")
    assert plan.argv == ["/bin/sh"]
    for arg in plan.argv:
        assert "pwned" not in arg and "Handover" not in arg
    assert plan.packet_file is not None and plan.packet_file.read_text() == packet
    assert mode_of(plan.packet_file) == 0o600
    assert plan.first_line is not None
    assert plan.first_line.startswith("# ") and "\n" not in plan.first_line
    assert str(plan.packet_file) in plan.first_line
    assert plan.env_extra == {handover_plan.PACKET_ENV: str(plan.packet_file)}
    assert plan.model is None and plan.mode == "first_prompt"


def test_swap_demo_to_shell_and_back(tmp_path: Path) -> None:
    there = plan_swap("demo", "demo-standard", SID, "shell", None, "p1", tmp_path / "p")
    back = plan_swap("shell", None, SID, "demo", "demo-standard", "p2", tmp_path / "p")
    assert there.old_quit_sequence == b"/quit\r"
    assert back.old_quit_sequence == b""
    assert back.argv[3] == "p2" and back.model == "demo-standard"


def test_refusals_name_why_and_write_nothing(isolated: Path, tmp_path: Path) -> None:
    packet_dir = tmp_path / "p"
    with pytest.raises(HandoverRefused, match="unknown harness 'nope'"):
        plan_swap("demo", None, SID, "nope", None, "x", packet_dir)
    with pytest.raises(HandoverRefused, match=r"claude is not installed \(`claude` not found"):
        plan_swap("demo", None, SID, "claude", "opus", "x", packet_dir)
    install(isolated, "claude")
    gate = AdapterGate(disabled={"claude": "disabled in /r/.zirv/.settings.toml"})
    with pytest.raises(HandoverRefused, match=r"claude is disabled \(disabled in /r/"):
        plan_swap("demo", None, SID, "claude", "opus", "x", packet_dir, gate=gate)
    with pytest.raises(HandoverRefused, match="ZIRV_AGENT_CLAUDE_ENABLED"):
        plan_swap("demo", None, SID, "claude", "opus", "x", packet_dir, gate=lambda n: False)
    with pytest.raises(HandoverRefused, match="outgoing agent 'ghost'"):
        plan_swap("ghost", None, SID, "claude", "opus", "x", packet_dir)
    with pytest.raises(HandoverRefused, match="not a model id"):
        plan_swap("demo", None, SID, "claude", "--evil", "x", packet_dir)
    with pytest.raises(HandoverRefused, match="takes no model"):
        plan_swap("demo", None, SID, "shell", "opus", "x", packet_dir)
    assert not packet_dir.exists()


def test_gate_is_read_from_the_repo_when_not_given(isolated: Path, tmp_path: Path) -> None:
    install(isolated, "claude")
    settings = Path.cwd() / ".zirv" / ".settings.toml"
    settings.parent.mkdir()
    settings.write_text("[agents.claude]\nenabled = false\n")
    with pytest.raises(HandoverRefused, match="claude is disabled"):
        handover_plan.check_harness("claude")
    assert handover_plan.check_harness("shell").name == "shell"


def test_default_packet_dir_is_private_under_state(tmp_path: Path) -> None:
    where = handover_plan.default_packet_dir()
    assert where == tmp_path / "state" / "handover"
    assert mode_of(where) == 0o700


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ('{"target_agent": "claude", "force": "yes"}', "field 'force' is not true/false"),
        ('{"target_agent": "claude", "requested_at": 5.5}', "field 'requested_at'"),
        ('{"target_agent": ""}', "field 'target_agent'"),
        ('{"target_model": "opus"}', "field 'target_agent' is missing"),
        ('{"target_agent": "c", "generation": 1180591620717411303424}', "field 'generation'"),
    ],
)
def test_a_malformed_request_names_its_file_and_field(
    tmp_path: Path, content: str, words: str
) -> None:
    path = sessions(tmp_path) / f"{SHORT}.handover-req"
    path.parent.mkdir(parents=True)
    path.write_text(content)
    with pytest.raises(HandoverFileError) as caught:
        handover_files.claim_request(SHORT)
    assert str(path) in str(caught.value) and words in str(caught.value)
