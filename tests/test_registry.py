"""Session registry: records on disk, sweeping, liveness and prefix resolution."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest

from zirv_dash.panes import procinfo, registry
from zirv_dash.panes.registry import SessionRecord


@pytest.fixture
def state(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    # Short path: unix socket names are limited to 107 bytes.
    directory = Path(tempfile.mkdtemp(prefix="zreg", dir="/tmp"))
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(directory))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def sleeper() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc
    proc.kill()
    proc.wait()


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def make(session: str, pid: int, **kw: object) -> SessionRecord:
    record = SessionRecord.new(session, "claude", Path("/work/my-repo"), "dash", pid)
    return msgspec.structs.replace(record, **kw)


def test_record_round_trips_with_upstream_fields_and_private_modes(state: Path) -> None:
    record = make("abcdef12-3456-7890-abcd-ef1234567890", os.getpid(), role="worker", owner_pid=7)
    path = registry.register(record)
    assert path == state / "sessions" / "abcdef12.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    text = path.read_text()
    assert text.startswith("{\n  ")  # pretty-printed, like upstream
    data = json.loads(text)
    for key in ("session", "short", "agent", "repo", "repo_slug", "verb", "pid", "started_at"):
        assert key in data
    assert data["repo_slug"] == "-work-my-repo"
    assert data["reachable"] is True and data["runtime"] == "harness"
    assert data["role"] == "worker" and data["owner_pid"] == 7
    assert data["start_time"] == pytest.approx(procinfo.process_start_time(os.getpid()))
    assert registry.read_record(path) == record


def test_unknown_fields_survive_a_rewrite(state: Path) -> None:
    path = state / "sessions" / "feedbeef.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                "session": "feedbeef-0000",
                "short": "feedbeef",
                "agent": "codex",
                "repo": "/r",
                "repo_slug": "-r",
                "verb": "exec",
                "pid": os.getpid(),
                "started_at": 1,
                "in_flight": {"verb": "exec", "turn": 3, "since": 5},
                "safety_policy_sha256": "00",
            }
        )
    )
    record = registry.read_record(path)
    assert record.reachable is True and record.start_time is None
    registry.register(record)
    data = json.loads(path.read_text())
    assert data["in_flight"] == {"verb": "exec", "turn": 3, "since": 5}
    assert data["safety_policy_sha256"] == "00"


def test_liveness_words(state: Path, sleeper: subprocess.Popen[bytes]) -> None:
    live = make("11111111-a", sleeper.pid)
    unreachable = make("22222222-b", sleeper.pid, reachable=False)
    gone = make("33333333-c", _dead_pid())
    assert registry.liveness(live) == "live"
    assert registry.liveness(unreachable) == "unreachable"
    assert registry.liveness(gone) == "stale"


def test_reused_pid_with_another_start_time_is_stale(state: Path) -> None:
    record = make("44444444-d", os.getpid())
    assert record.start_time is not None
    # A different process once had our pid.
    record = msgspec.structs.replace(record, start_time=record.start_time - 1000.0)
    assert registry.liveness(record) == "stale"


def test_list_sweeps_dead_records_and_their_siblings_once(
    state: Path, sleeper: subprocess.Popen[bytes]
) -> None:
    alive = make("aaaaaaaa-1", sleeper.pid)
    dead = make("bbbbbbbb-2", _dead_pid())
    registry.register(alive)
    registry.register(dead)
    sessions = state / "sessions"
    for suffix in (".nudge", ".screening", ".workflow"):
        (sessions / f"bbbbbbbb{suffix}").write_text("x")
    (sessions / "aaaaaaaa.nudge").write_text("sender")

    sockets = state / "s"
    sockets.mkdir()
    left = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    left.bind(str(sockets / "bbbbbbbb.sock"))
    left.close()  # the dead session's socket file, nobody listening

    first = registry.list_sessions()
    assert {r.short for r in first} == {"aaaaaaaa", "bbbbbbbb"}  # reported a final time
    assert not (sessions / "bbbbbbbb.json").exists()
    assert not any(sessions.glob("bbbbbbbb.*"))
    assert (sessions / "aaaaaaaa.nudge").exists()
    assert not (sockets / "bbbbbbbb.sock").exists()

    second = registry.list_sessions()
    assert [r.short for r in second] == ["aaaaaaaa"]
    assert [r.short for r in registry.live_sessions()] == ["aaaaaaaa"]


def test_orphan_siblings_are_swept(state: Path) -> None:
    sessions = state / "sessions"
    sessions.mkdir(parents=True)
    for name in ("cccccccc.nudge", "cccccccc.screening", "cccccccc.workflow", "dddddddd.seat.json"):
        (sessions / name).write_text("x")
    registry.list_sessions()
    assert sorted(p.name for p in sessions.iterdir()) == ["dddddddd.seat.json"]


def test_list_without_sweep_leaves_files(state: Path) -> None:
    registry.register(make("eeeeeeee-1", _dead_pid()))
    (state / "sessions" / "ffffffff.nudge").write_text("x")
    assert [r.short for r in registry.list_sessions(sweep=False)] == ["eeeeeeee"]
    assert (state / "sessions" / "eeeeeeee.json").exists()
    assert (state / "sessions" / "ffffffff.nudge").exists()


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("garbage1.json", b"not json at all", "not valid JSON"),
        ("partial1.json", b'{"session": "partial1-x", "pid": 1', "not valid JSON"),
        ("array001.json", b"[1, 2, 3]", "not a JSON object"),
        ("nopid001.json", b'{"session": "nopid001-x"}', "'pid' is missing"),
        ("badpid01.json", b'{"session": "badpid01-x", "pid": "12"}', "'pid' is not a number"),
        ("binary01.json", b"\xff\xfe\x00garbage", "not UTF-8 text"),
        ("surrogt1.json", b'{"session": "surrogt1-\\ud800", "pid": 1}', "not valid UTF-8"),
        ("nulchar1.json", b'{"session": "nulchar1", "pid": 1, "x": "a\\u0000"}', "NUL"),
        ("misnamed.json", b'{"session": "abcdabcd-x", "pid": 1}', "file name differs"),
        ("evilshrt.json", b'{"session": "x", "short": "../../etc", "pid": 1}', "not a short id"),
        ("bigpid01.json", b'{"session": "bigpid01", "pid": 1180591620717411303424}', "'pid'"),
        (
            "reach001.json",
            b'{"session": "reach001", "pid": 1, "reachable": "yes"}',
            "field 'reachable' is not true/false",
        ),
        (
            "noagent1.json",
            b'{"session": "noagent1", "pid": 1, "agent": 7}',
            "field 'agent' is not a string",
        ),
    ],
)
def test_garbage_records_are_skipped_with_a_message_and_kept(
    state: Path, name: str, content: bytes, expected: str
) -> None:
    sessions = state / "sessions"
    sessions.mkdir(parents=True)
    bad = sessions / name
    bad.write_bytes(content)
    registry.register(make("12345678-ok", os.getpid()))
    problems: list[str] = []
    records = registry.list_sessions(problems=problems)
    assert [r.short for r in records] == ["12345678"]
    assert len(problems) == 1
    assert str(bad) in problems[0] and expected in problems[0]
    assert bad.read_bytes() == content  # never deleted


def test_unreadable_record_is_skipped(state: Path) -> None:
    sessions = state / "sessions"
    (sessions / "dirasrec.json").mkdir(parents=True)  # reading it raises an OSError
    problems: list[str] = []
    assert registry.list_sessions(problems=problems) == []
    assert "not a regular file (a directory)" in problems[0]
    assert (sessions / "dirasrec.json").is_dir()


def test_temp_files_are_ignored(state: Path) -> None:
    sessions = state / "sessions"
    sessions.mkdir(parents=True)
    (sessions / ".abcd.json.tmp-xyz").write_text("{")
    problems: list[str] = []
    assert registry.list_sessions(problems=problems) == [] and problems == []


def test_unregister_removes_record_and_siblings(state: Path) -> None:
    registry.register(make("99999999-z", os.getpid()))
    sessions = state / "sessions"
    for suffix in (".nudge", ".screening", ".workflow"):
        (sessions / f"99999999{suffix}").write_text("x")
    (sessions / "99999999.seat.json").write_text("{}")
    registry.unregister("99999999")
    assert [p.name for p in sessions.iterdir()] == ["99999999.seat.json"]
    registry.unregister("99999999")  # idempotent


def test_short_ids_are_validated(state: Path) -> None:
    with pytest.raises(ValueError, match="not a session short id"):
        registry.record_path("../x")
    assert registry.socket_path("abcdef12") == state / "s" / "abcdef12.sock"


def _records() -> list[SessionRecord]:
    return [
        make("abcd1234-0000", 1),
        make("abcd5678-1111", 2),
        make("ff001122-2222", 3),
        SessionRecord(
            session="ab1", short="ab1", agent="shell", repo="/r", repo_slug="-r", verb="wrap", pid=4
        ),
    ]


def test_resolve_unique_prefix_short_and_session_id() -> None:
    records = _records()
    assert registry.resolve_prefix("ff00", records).short == "ff001122"
    assert registry.resolve_prefix("FF001122", records).short == "ff001122"
    assert registry.resolve_prefix("abcd5678-11", records).short == "abcd5678"
    assert registry.resolve_prefix("ab1", records).short == "ab1"  # a whole short id


def test_resolve_too_short_lists_live_sessions() -> None:
    with pytest.raises(registry.ResolveError) as info:
        registry.resolve_prefix("ff", _records())
    assert info.value.kind == "too-short"
    message = str(info.value)
    assert "at least 4 characters" in message
    assert "ff001122" in message and "abcd1234" in message


def test_resolve_ambiguous_lists_the_matches() -> None:
    with pytest.raises(registry.ResolveError) as info:
        registry.resolve_prefix("abcd", _records())
    assert info.value.kind == "ambiguous"
    assert {r.short for r in info.value.candidates} == {"abcd1234", "abcd5678"}
    assert "abcd1234" in str(info.value) and "abcd5678" in str(info.value)
    assert "ff001122" not in str(info.value)


def test_resolve_not_found_and_empty() -> None:
    with pytest.raises(registry.ResolveError) as info:
        registry.resolve_prefix("9999", _records())
    assert info.value.kind == "not-found"
    assert "no live session matches '9999'" in str(info.value)
    with pytest.raises(registry.ResolveError, match="no live sessions"):
        registry.resolve_prefix("9999", [])
    assert registry.resolve_prefix("f", _records(), min_len=1).short == "ff001122"


def test_orphan_sockets_listed_when_listening_and_swept_when_dead(state: Path) -> None:
    sockets = state / "s"
    sockets.mkdir(parents=True)
    live = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    live.bind(str(sockets / "0123abcd.sock"))
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    dead.bind(str(sockets / "dead0000.sock"))
    dead.close()  # the file stays, nobody listens
    stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stream.bind(str(sockets / "strm0000.sock"))
    stream.listen()
    try:
        found = registry.orphan_sockets([])
        assert sorted(p.name for p in found) == ["0123abcd.sock", "strm0000.sock"]
        assert not (sockets / "dead0000.sock").exists()
    finally:
        live.close()
        stream.close()
