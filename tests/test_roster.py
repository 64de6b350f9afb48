"""Restore roster: write, take by rename, age, tolerance, liveness, relaunch argv."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from msgspec.structs import replace

from zirv_dash import paths
from zirv_dash.dash import roster
from zirv_dash.dash.roster import RosterPane
from zirv_dash.harnesses.adapters import ADAPTERS
from zirv_dash.panes import procinfo

SLUG = "-work-repo"


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(tmp_path / "state"))
    return paths.state_dir()


def pane(n: int, **kw: object) -> RosterPane:
    return RosterPane(agent="claude", session_id=f"sess{n:04d}-aaaa-bbbb", short=f"sess{n:04d}",
                      title=f"wrk {n}", **kw)  # type: ignore[arg-type]  # fmt: skip


def test_write_then_take(state: Path) -> None:
    panes = [pane(1, report_to="orch0001", budget_tokens=500, work_group_id="g1"),
             pane(2, interactive=True, role="sub-orchestrator"), pane(1)]  # fmt: skip
    path = roster.write_roster(state, SLUG, panes, now=1000)
    assert path == state / "dash" / f"roster-{SLUG}.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    text = path.read_text()
    assert text.endswith("\n") and "\n" not in text[:-1] and ": " not in text  # compact
    doc = json.loads(text)
    assert doc["written"] == 1000 and len(doc["panes"]) == 2  # de-duplicated by session_id
    assert set(doc["panes"][0]) == {
        "agent", "session_id", "role", "short", "title", "report_to", "report_reminder_sent",
        "settled_mail_sent", "work_group_id", "budget_tokens", "interactive", "parent_session",
        "native", "native_generation", "cwd", "model",
    }  # fmt: skip

    got = roster.take_roster(state, SLUG, max_age_secs=60, now=1030)
    assert got == panes[:2]
    assert not path.exists()
    assert roster.consumed_path(state, SLUG).exists()
    assert roster.take_roster(state, SLUG, max_age_secs=60, now=1030) == []


def test_too_old_is_ignored_but_consumed(state: Path) -> None:
    roster.write_roster(state, SLUG, [pane(1)], now=1000)
    assert roster.take_roster(state, SLUG, max_age_secs=60, now=1061) == []
    assert not roster.roster_path(state, SLUG).exists()
    assert roster.consumed_path(state, SLUG).exists()


@pytest.mark.parametrize(
    "content",
    [b"", b"{not json", b"[]", b'{"panes": []}', b'{"written": "yesterday", "panes": []}',
     b'{"written": true, "panes": []}', b"\xff\xfe", b"[" * 50000 + b"]" * 50000],
)  # fmt: skip
def test_garbage_is_absent_but_consumed(state: Path, content: bytes) -> None:
    path = roster.roster_path(state, SLUG)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    assert roster.take_roster(state, SLUG, max_age_secs=10**9) == []
    assert not path.exists() and roster.consumed_path(state, SLUG).exists()


def test_entries_decode_strictly_and_name_the_field(state: Path) -> None:
    path = roster.roster_path(state, SLUG)
    path.parent.mkdir(parents=True, exist_ok=True)
    entries = [
        {"agent": "codex", "session_id": "abcdef12-0000", "role": "worker", "short": "abcdef12",
         "title": "wrk codex"},  # an old build's entry: every later field missing
        {"agent": "gemini", "session_id": "fedcba98-1111", "future_field": {"x": 1}},
        {"agent": "claude"},  # no session id: unusable
        "not an object",
        {"agent": 7, "session_id": "x"},
        {"agent": "gemini", "session_id": "x", "interactive": "yes"},
        {"agent": "gemini", "session_id": "x", "native_generation": -3},
    ]  # fmt: skip
    path.write_text(json.dumps({"written": 100, "panes": entries, "extra": True}))
    problems: list[str] = []
    got = roster.take_roster(state, SLUG, max_age_secs=10, now=105, problems=problems)
    assert [p.agent for p in got] == ["codex", "gemini"]
    old, new = got
    assert old.interactive is False and old.report_to is None and old.native_generation == 0
    assert new.role == "worker" and new.budget_tokens is None and new.interactive is False
    assert new.native_generation == 0 and new.short == "fedcba98" and new.title == ""
    assert [p.split(": ", 1)[1] for p in problems] == [
        "entry 3 not restored: field 'session_id' is missing",
        "entry 4 not restored: not a JSON object",
        "entry 5 not restored: field 'agent' is not a string (got a number)",
        "entry 6 not restored: field 'interactive' is not true/false (got a string)",
        "entry 7 not restored: field 'native_generation' is not a number >= 0",
    ]
    # The claimed file is kept as it was, for a human to look at.
    assert json.loads(roster.consumed_path(state, SLUG).read_text())["panes"] == entries


def test_only_one_taker_wins(state: Path) -> None:
    roster.write_roster(state, SLUG, [pane(1), pane(2)])
    results: list[list[RosterPane]] = []
    barrier = threading.Barrier(8)

    def take() -> None:
        barrier.wait()
        results.append(roster.take_roster(state, SLUG, max_age_secs=60))

    threads = [threading.Thread(target=take) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert sorted(len(r) for r in results) == [0] * 7 + [2]


def test_partition_live(state: Path) -> None:
    sessions = state / "sessions"
    sessions.mkdir()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        live, dead, orch = pane(1), pane(2), pane(3, role="orchestrator")
        (sessions / f"{live.short}.json").write_text(json.dumps({
            "session": live.session_id, "short": live.short, "pid": sleeper.pid,
            "start_time": procinfo.process_start_time(sleeper.pid)}))  # fmt: skip
        gone = subprocess.Popen([sys.executable, "-c", "pass"])
        gone.wait()
        (sessions / f"{dead.short}.json").write_text(
            json.dumps({"session": dead.session_id, "short": dead.short, "pid": gone.pid})
        )
        offer, kept = roster.partition_live([live, dead, orch], state)
        assert offer == [dead] and kept == [live]
        assert roster.kept_notice(live) == (
            "not restoring wrk 1 (sess0001): that session is still running (kept for next launch)"
        )
        # A record whose start time does not match is a reused pid: not live.
        (sessions / f"{live.short}.json").write_text(
            json.dumps({"session": live.session_id, "pid": sleeper.pid, "start_time": 1.0})
        )
        assert roster.partition_live([live], state) == ([live], [])
        (sessions / f"{live.short}.json").write_text("garbage")
        assert roster.partition_live([live], state) == ([live], [])
    finally:
        sleeper.kill()
        sleeper.wait()


def test_partition_with_custom_liveness() -> None:
    a, b = pane(1), pane(2)
    assert roster.partition_live([a, b], is_live=lambda p: p is a) == ([b], [a])


def test_split_for_cap() -> None:
    checked = [pane(i) for i in range(5)]
    now, later, err = roster.split_for_cap(checked, live_panes=7, max_panes=9)
    assert now == checked[:2] and later == checked[2:]
    assert err == "restore: pane limit reached (dash.max_panes = 9); 3 session(s) not restored"
    assert roster.split_for_cap(checked, 0, 9) == (checked, [], None)
    assert roster.split_for_cap(checked, 12, 9)[0] == []


SESSION = "0a1b2c3d-0000-4000-8000-000000000001"


def test_restore_argv() -> None:
    p = replace(pane(1), session_id=SESSION)
    argv = roster.restore_argv(ADAPTERS["claude"], p)
    assert argv == ["claude", "--permission-mode", "dontAsk", "--resume", SESSION]
    p = replace(p, interactive=True)
    assert "default" in roster.restore_argv(ADAPTERS["claude"], p)
    assert roster.restore_env(p) == {"ZIRV_CTX_LAUNCH_MODE": "interactive"}
    g = RosterPane(agent="gemini", session_id=SESSION)
    assert roster.restore_argv(ADAPTERS["gemini"], g) == ["gemini", roster.RESTART_PROMPT]
    assert roster.restore_env(g) == {"ZIRV_CTX_HEADLESS": "1"}
    # pi cannot pin our id, so it is never a resume target there.
    assert roster.restore_argv(ADAPTERS["pi"], g)[-1] == roster.RESTART_PROMPT


def test_restore_never_resumes_a_forged_session_id() -> None:
    # The roster is a file: only a real session id may become a resume target.
    forged = replace(pane(1), session_id="--dangerously-skip-permissions")
    argv = roster.restore_argv(ADAPTERS["claude"], forged)
    assert "--resume" not in argv and "--dangerously-skip-permissions" not in argv
    assert argv[1] == roster.RESTART_PROMPT


def test_roster_survives_a_symlinked_roster(state: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text(json.dumps({"written": 1, "panes": []}))
    path = roster.roster_path(state, SLUG)
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(secret, path)
    assert roster.take_roster(state, SLUG, max_age_secs=10**12) == []
    assert secret.exists()


@pytest.mark.parametrize(
    ("field", "value"),
    [("session_id", "\ud800"), ("agent", "clau\udcffde"), ("title", "a\x00b"),
     ("work_group_id", "\udfff"), ("parent_session", "x\ud800")],
)  # fmt: skip
def test_unencodable_entry_is_refused_with_a_clear_problem(
    state: Path, field: str, value: str
) -> None:
    bad = pane(1).to_json()
    bad[field] = value
    good = pane(2).to_json()
    path = roster.roster_path(state, SLUG)
    path.parent.mkdir(parents=True, exist_ok=True)
    # json.dumps escapes the lone surrogate as \\ud800, exactly as a hand edit would.
    path.write_text(json.dumps({"written": 100, "panes": [bad, good]}))
    problems: list[str] = []
    got = roster.take_roster(state, SLUG, max_age_secs=10, now=105, problems=problems)
    assert [p.short for p in got] == ["sess0002"]  # the good entry is still offered
    assert len(problems) == 1
    assert "entry 1 not restored" in problems[0] and f"`roster entry.{field}`" in problems[0]
    # what is offered can always be handed to exec
    for entry in got:
        argv = roster.restore_argv(ADAPTERS["claude"], entry)
        for arg in argv:
            arg.encode("utf-8")


def test_a_roster_write_cut_short_by_a_kill_is_swept(state: Path) -> None:
    roster.write_roster(state, SLUG, [pane(1)], now=1000)
    left = roster.roster_path(state, SLUG).with_name(f".roster-{SLUG}.json.tmp-dead")
    left.write_text('{"written": 1')
    os.utime(left, (1, 1))
    assert roster.take_roster(state, SLUG, max_age_secs=60, now=1030) == [pane(1)]
    assert not left.exists()


def test_cwd_round_trips_when_it_is_a_directory(state: Path, tmp_path: Path) -> None:
    work = tmp_path / "work dir"
    work.mkdir()
    roster.write_roster(state, SLUG, [pane(1, cwd=str(work))], now=1000)
    doc = json.loads(roster.roster_path(state, SLUG).read_text())
    assert doc["panes"][0]["cwd"] == str(work)
    problems: list[str] = []
    (got,) = roster.take_roster(state, SLUG, max_age_secs=60, now=1001, problems=problems)
    assert got.cwd == str(work) and problems == []


@pytest.mark.parametrize(
    ("value", "words"),
    [("relative/dir", "is not an absolute path"), ("", "is not an absolute path"),
     ("/no/such/dir/here", "is not an existing directory"),
     (7, "field 'cwd' is not a string or null")],
)  # fmt: skip
def test_a_bad_cwd_is_dropped_and_named(
    state: Path, tmp_path: Path, value: object, words: str
) -> None:
    entry = pane(1).to_json()
    entry["cwd"] = value
    path = roster.roster_path(state, SLUG)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"written": 100, "panes": [entry]}))
    problems: list[str] = []
    got = roster.take_roster(state, SLUG, max_age_secs=10, now=105, problems=problems)
    assert len(problems) == 1 and words in problems[0] and "entry 1" in problems[0]
    if value == 7:
        assert got == []  # a wrong type refuses the entry, like every other field
    else:
        assert got[0].cwd is None  # restored in the repository root


def test_a_file_as_cwd_is_refused(state: Path, tmp_path: Path) -> None:
    plain = tmp_path / "file"
    plain.write_text("x")
    roster.write_roster(state, SLUG, [pane(1, cwd=str(plain))], now=1000)
    problems: list[str] = []
    (got,) = roster.take_roster(state, SLUG, max_age_secs=60, now=1001, problems=problems)
    assert got.cwd is None and "is not an existing directory" in problems[0]


def test_an_unencodable_cwd_refuses_the_entry(state: Path) -> None:
    entry = pane(1).to_json()
    entry["cwd"] = "/tmp/\ud800"
    path = roster.roster_path(state, SLUG)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"written": 100, "panes": [entry]}))
    problems: list[str] = []
    assert roster.take_roster(state, SLUG, max_age_secs=10, now=105, problems=problems) == []
    assert "`roster entry.cwd`" in problems[0]


def test_a_handed_over_model_comes_back_on_restore() -> None:
    p = RosterPane.from_json({"agent": "claude", "session_id": SESSION, "model": "opus"})
    assert p is not None and p.model == "opus"
    argv = roster.restore_argv(ADAPTERS["claude"], p)
    assert argv[argv.index("--model") + 1] == "opus"
    # A model that looks like a flag never reaches argv; the entry says why.
    problems: list[str] = []
    forged = RosterPane.from_json(
        {"agent": "claude", "session_id": SESSION, "model": "--dangerously-skip-permissions"},
        problems,
    )
    assert forged is not None and forged.model is None
    assert "--dangerously" not in " ".join(roster.restore_argv(ADAPTERS["claude"], forged))
    assert problems and "looks like a flag" in problems[0]


def test_a_roster_whose_field_name_is_not_text_is_ignored_and_kept(state: Path) -> None:
    path = roster.roster_path(state, SLUG)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b'{"\\ud800": null, "written": 100, "panes": []}')
    assert roster.take_roster(state, SLUG, max_age_secs=10, now=105) == []
    assert roster.consumed_path(state, SLUG).read_bytes().startswith(b'{"\\ud800"')
