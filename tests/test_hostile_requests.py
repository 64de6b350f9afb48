"""Hostile spawn requests, acks and handover records against the real code paths.

`CORPUS` grows with every case found: each entry is a request body and the words
its refusal must contain. Every case goes through a real dashboard (real PTYs,
real channel files) and must be refused with a reason naming the problem while
the dashboard and its panes stay up. The fuzz targets at the end check that
every decoder of an external record raises nothing but its own error type.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.intakehelpers import (
    ask,
    drive,
    git_repo,
    live_dashboard,
    plain_shell_env,
    private_channel,
    request,
)
from tests.test_agent_cli import zirv
from tests.test_spawn import FakeDashboard, make_repo
from zirv_dash import spawn
from zirv_dash.config.layers import load_settings
from zirv_dash.dash import roster
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.handover import files as handover_files
from zirv_dash.handover import plan as handover_plan
from zirv_dash.harnesses import catalogue
from zirv_dash.intake import Intake

pytestmark = pytest.mark.timeout(90)

LONE = "\ud800"

# (name, request fields to override, words the refusal must contain)
CORPUS: list[tuple[str, dict[str, object], str]] = [
    ("surrogate prompt", {"prompt": f"hi {LONE}"}, "prompt"),
    ("surrogate result_schema", {"result_schema": f"{{{LONE}}}"}, "result_schema"),
    ("surrogate work_group_id", {"work_group_id": LONE}, "work_group_id"),
    ("surrogate model", {"model": f"demo{LONE}"}, "model"),
    ("surrogate cwd", {"cwd": f"/tmp/{LONE}"}, "cwd"),
    ("surrogate requested_by", {"requested_by": LONE}, "requested_by"),
    ("surrogate name", {"name": LONE}, "name"),
    ("surrogate workdir", {"workdir": LONE}, "workdir"),
    ("surrogate system_prompt", {"system_prompt": LONE}, "system_prompt"),
    ("surrogate envelope", {"envelope": LONE}, "envelope"),
    ("surrogate parent_session", {"parent_session": LONE}, "parent_session"),
    ("surrogate role", {"role": LONE}, "role"),
    ("surrogate agent", {"agent": LONE}, "agent"),
    ("surrogate flag", {"flags": ["ok", LONE]}, "flags[1]"),
    ("surrogate path_scope", {"path_scope": [LONE]}, "path_scope[0]"),
    ("NUL prompt", {"prompt": "a\x00b"}, "NUL"),
    ("NUL result_schema", {"result_schema": "\x00"}, "NUL"),
    ("model with trailing newline", {"model": "demo-standard\n"}, "only letters"),
    ("model option", {"model": "--yolo"}, "looks like a flag"),
    ("prompt option", {"prompt": "--model=INJECTED"}, "argv injection guard"),
    ("prompt option after blanks", {"prompt": " \t-x"}, "argv injection guard"),
    ("empty prompt", {"prompt": "  "}, "prompt is empty"),
]


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    plain_shell_env(monkeypatch)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return git_repo(tmp_path)


@pytest.fixture
def setup(repo: Path) -> Iterator[tuple[Dashboard, Intake]]:
    with live_dashboard(repo) as both:
        yield both


# --- the corpus, through a live dashboard ------------------------------------------------


def test_corpus_is_refused_naming_the_field(setup: tuple[Dashboard, Intake], repo: Path) -> None:
    dash, intake = setup
    assert intake.channel is not None
    orch = dash.panes[0]
    for channel in (intake.channel.requests, private_channel(intake, orch.short)):
        for name, fields, words in CORPUS:
            ack = ask(dash, intake, channel, request(repo, **fields))
            assert ack is not None and not ack.ok, name
            assert words in (ack.reason or ""), (name, ack.reason)
    assert [p.short for p in dash.panes] == [orch.short] and orch.alive
    # The dashboard still serves a good request afterwards.
    ack = ask(dash, intake, intake.channel.requests, request(repo))
    assert ack is not None and ack.ok


def test_raw_surrogate_escape_in_json_text(setup: tuple[Dashboard, Intake], repo: Path) -> None:
    dash, intake = setup
    assert intake.channel is not None
    cwd = json.dumps(str(repo))
    raw = (
        f'{{"agent":"demo","prompt":"ok","cwd":{cwd},"requested_by":"x","result_schema":"\\udfff"}}'
    ).encode()
    ack = ask(dash, intake, intake.channel.requests, None, raw=raw)
    assert ack is not None and not ack.ok and "result_schema" in (ack.reason or "")
    assert len(dash.panes) == 1 and dash.panes[0].alive


def test_ack_strings_are_checked() -> None:
    bad_reason = spawn.SpawnAck.from_json({"ok": False, "reason": f"no {LONE}"})
    assert bad_reason is not None and bad_reason.reason is not None
    bad_reason.reason.encode("utf-8")  # printable by the requester
    assert spawn.SpawnAck.from_json({"ok": True, "short": "abc123\n"}) is None
    assert spawn.SpawnAck.from_json({"ok": True, "short": LONE}) is None
    warned = spawn.SpawnAck.from_json(
        {"ok": True, "short": "abc123", "capability_warnings": [{LONE: "\x00"}]}
    )
    assert warned is not None
    json.dumps(warned.capability_warnings, ensure_ascii=False).encode("utf-8")


# --- anchors: no trailing newline slips through ------------------------------------------


def test_ids_with_a_trailing_newline_are_refused() -> None:
    assert spawn.model_refusal("demo-standard\n") is not None
    assert spawn.SHORT_RE.match("abc123\n") is None
    assert spawn.REQ_ID_RE.match("abc\n") is None
    assert spawn.MODEL_RE.match("gpt-5\n") is None
    with pytest.raises(ValueError):
        handover_files.request_path("abc123\n")
    assert catalogue._MODEL_ID.match("demo-standard\n") is None
    # The catalogue trims what it is given, so nothing with a newline is resolved.
    got = catalogue.resolve_model("demo", "demo-x\n", load_settings(Path.cwd()))
    assert got.model == "demo-x"
    claimed = spawn.Claimed(Path("/nonexistent"), "abc\n", Path("/nonexistent/x"))
    assert not claimed.ackable


# --- the prompt is never an option ---------------------------------------------------------


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


def test_stdin_prompt_is_never_an_option_inline(state: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "inline")
    got = zirv(["demo", "-"], repo, state, stdin="--model=INJECTED")
    assert got.returncode == 2, got.stdout
    assert "argv injection guard" in got.stderr
    assert "INJECTED" not in got.stdout and "demo agent" not in got.stdout
    got = zirv(["demo", "-", "--json"], repo, state, stdin=" -x")
    assert got.returncode == 2 and json.loads(got.stdout)["state"] == "launch_failed"


def test_stdin_prompt_that_is_not_utf8_is_a_clear_error(state: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "inline")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZIRV_")}
    env.update(ZIRV_CTX_STATE_DIR=str(state), ZIRV_HOME=str(tmp_path / "home"))
    got = subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "agent", "demo", "-"],
        cwd=repo, env=env, input=b"\xff\xfe say hi", capture_output=True, timeout=30,
    )  # fmt: skip
    assert got.returncode == 2
    assert b"not UTF-8" in got.stderr and b"Traceback" not in got.stderr


def test_stdin_option_prompt_never_reaches_a_dashboard(tmp_path: Path) -> None:
    state = tmp_path / "state"
    repo = make_repo(tmp_path / "work" / "repo")
    dash = FakeDashboard(state, repo).start()
    try:
        got = zirv(["demo", "-"], repo, state, stdin="--model=INJECTED")
        assert got.returncode == 2 and "argv injection guard" in got.stderr
        assert dash.spawned == []
    finally:
        dash.stop()


def test_handover_first_prompt_is_never_an_option(tmp_path: Path) -> None:
    swapped = handover_plan.plan_swap(
        "shell", None, None, "demo", None, "--model=INJECTED", tmp_path, gate=lambda _a: True
    )
    assert swapped.mode == "first_prompt"
    assert not any(arg.startswith("--model=INJECTED") for arg in swapped.argv)
    with pytest.raises(handover_files.HandoverRefused, match="argv injection"):
        handover_plan.plan_swap(
            "shell", None, None, "claude", None, "p", tmp_path,
            gate=lambda _a: True, kickoff="--yolo",
        )  # fmt: skip


# --- handover request / ack files -----------------------------------------------------------


def test_handover_records_with_unusable_text_are_refused(isolated_state: Path) -> None:
    with pytest.raises(handover_files.HandoverRecordError, match="target_model"):
        handover_files.HandoverRequest.from_dict({"target_agent": "demo", "target_model": LONE})
    with pytest.raises(handover_files.HandoverRecordError, match="target_agent"):
        handover_files.HandoverRequest.from_dict({"target_agent": f"de{LONE}mo"})
    with pytest.raises(handover_files.HandoverRecordError, match="reason"):
        handover_files.HandoverAck.from_dict({"ok": False, "reason": "\x00"})
    path = handover_files.request_path("abc123")
    path.write_text('{"target_agent": "demo", "target_runtime": "\\ud800"}')
    with pytest.raises(handover_files.HandoverFileError, match="target_runtime"):
        handover_files.claim_request("abc123")
    assert not path.exists()


def test_handover_request_fifo_or_symlink_is_refused_without_blocking(
    isolated_state: Path, tmp_path: Path
) -> None:
    path = handover_files.request_path("fifo1234")
    os.mkfifo(path)
    with pytest.raises(handover_files.HandoverFileError, match="not a regular file"):
        handover_files.claim_request("fifo1234")
    target = tmp_path / "secret.json"
    target.write_text('{"target_agent": "demo"}')
    link = handover_files.request_path("link1234")
    link.symlink_to(target)
    with pytest.raises(handover_files.HandoverFileError):
        handover_files.claim_request("link1234")
    assert target.exists()


# --- identity comes from the channel ------------------------------------------------------


def child_env_of(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = [item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item]
    return {k.decode(): v.decode(errors="replace") for k, v in pairs}


def test_requested_by_never_becomes_the_parent(setup: tuple[Dashboard, Intake], repo: Path) -> None:
    dash, intake = setup
    assert intake.channel is not None
    orch = dash.panes[0]
    ack = ask(dash, intake, intake.channel.requests,
              request(repo, agent="shell", requested_by=orch.short))  # fmt: skip
    assert ack is not None and ack.ok, ack
    pane = dash.pane_by_short(ack.short or "")
    assert pane is not None and pane.pty is not None
    assert pane.spec.requested_by is None
    assert "ZIRV_CTX_PARENT_SESSION" not in child_env_of(pane.pty.pid)
    assert intake.parents[pane.short] is None


def test_a_worker_cannot_use_its_orchestrators_channel(
    setup: tuple[Dashboard, Intake], repo: Path
) -> None:
    dash, intake = setup
    orch = dash.panes[0]
    theirs = private_channel(intake, orch.short)
    ack = ask(dash, intake, theirs, request(repo, requested_by=orch.short))
    assert ack is not None and ack.ok
    worker = ack.short or ""
    # The worker writes into its parent's channel, asking for a sub-orchestrator.
    forged = request(repo, requested_by=worker, role="sub-orchestrator")
    refused = ask(dash, intake, theirs, forged)
    assert refused is not None and not refused.ok
    assert "may only use its own channel" in (refused.reason or "")
    forged_session = dict(forged, requested_by=dash.pane_by_short(worker).session_id)  # type: ignore[union-attr]
    refused = ask(dash, intake, theirs, forged_session)
    assert refused is not None and not refused.ok
    assert not any(p.role == "sub-orchestrator" for p in dash.panes)


def test_a_channel_nobody_was_given_grants_nothing(
    setup: tuple[Dashboard, Intake], repo: Path
) -> None:
    dash, intake = setup
    assert intake.channel is not None
    planted = intake.channel.root / f"p-{'0' * 16}"
    planted.mkdir(mode=0o700)
    ack = ask(dash, intake, planted, request(repo))
    assert ack is not None and not ack.ok and "belongs to no pane" in (ack.reason or "")
    assert len(dash.panes) == 1


def test_an_ended_panes_channel_grants_nothing(setup: tuple[Dashboard, Intake], repo: Path) -> None:
    dash, intake = setup
    orch = dash.panes[0]
    ack = ask(dash, intake, private_channel(intake, orch.short), request(repo, agent="shell",
              role="sub-orchestrator"))  # fmt: skip
    assert ack is not None and ack.ok
    sub = dash.pane_by_short(ack.short or "")
    assert sub is not None
    channel = private_channel(intake, sub.short)
    sub.send(b"exit\r")
    drive(dash, intake, lambda: not sub.alive)
    refused = ask(dash, intake, channel, request(repo))
    assert refused is not None and not refused.ok and "has ended" in (refused.reason or "")


def test_roster_entry_with_unusable_text_is_not_restored(
    setup: tuple[Dashboard, Intake],
) -> None:
    dash, intake = setup
    entry = roster.RosterPane(agent="shell", session_id=f"abc{LONE}", short="abc00001")
    assert intake.spawn_restored(entry) is None
    assert any("session_id" in e.text for e in dash.errors.entries)
    assert len(dash.panes) == 1 and dash.panes[0].alive


# --- a flood is cheap: cap first, git cached, bounded per sweep, off the loop ---------------


def git_counter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A real `git` on PATH that logs each call and runs the real one."""
    real = subprocess.run(["which", "git"], capture_output=True, text=True, check=True)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "git-calls.log"
    script = bindir / "git"
    script.write_text(f'#!/bin/sh\necho "$*" >> {log}\nexec {real.stdout.strip()} "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    return log


def calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def test_flood_costs_no_git_per_request(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sub = repo / "src"
    sub.mkdir()
    with live_dashboard(repo, flags={"dash": {"max_panes": 1}}) as (dash, intake):
        assert intake.channel is not None
        log = git_counter(tmp_path, monkeypatch)
        for _ in range(300):
            spawn.write_request(intake.channel.requests, request(repo, cwd=str(sub)))
        swept = sweeps = 0
        while (job := intake.prepare_sweep()) is not None:
            job.run()
            assert job.claimed <= spawn.SWEEP_BUDGET
            intake.finish_sweep(job)
            if job.claimed == 0:
                break
            swept += job.claimed
            sweeps += 1
            # One lookup per distinct path per sweep (the repo, then src/), not per request.
            assert calls(log) <= 2 * sweeps, "git runs per request"
        assert swept == 300 and sweeps < 300 // 20
        refusals = list(intake.channel.requests.glob("ack-req-*.json"))
        assert len(refusals) == 300
        assert all("pane limit" in p.read_text() for p in refusals[:20])


def test_sweep_validates_off_the_event_loop(setup: tuple[Dashboard, Intake], repo: Path) -> None:
    dash, intake = setup
    assert intake.channel is not None
    path = spawn.write_request(intake.channel.requests, request(repo))
    job = intake.prepare_sweep()
    assert job is not None
    worker = threading.Thread(target=job.run)
    worker.start()
    worker.join(30)
    assert len(dash.panes) == 1  # nothing launched off the loop
    out = intake.finish_sweep(job)
    assert len(out.launched) == 1
    got = spawn.wait_for_ack(path, timeout=2, claim_extension=1, poll=0.02)
    assert got.ack is not None and got.ack.ok


# --- inline runs without a terminal end -----------------------------------------------------


def sessions(state: Path) -> list[Path]:
    return list((state / "sessions").glob("*.json"))


def test_headless_inline_demo_ends_on_its_turn_signal(state: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "inline")
    for extra in ([], ["--json"]):
        started = time.monotonic()
        got = zirv(["demo", "say hi", *extra], repo, state, stdin="")
        assert got.returncode == 0, got.stderr
        doc = json.loads(got.stdout.strip().splitlines()[-1])
        assert doc["mode"] == "inline" and doc["exit_code"] == 0
        assert "turn signal" in doc["reason"]
        assert sessions(state) == []
        assert time.monotonic() - started < 25


def test_headless_inline_with_dev_null(state: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "inline")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZIRV_")}
    env.update(ZIRV_CTX_STATE_DIR=str(state), ZIRV_HOME=str(tmp_path / "home"),
               ZIRV_DEMO_WORK_SECS="0", ZIRV_DEMO_SPINNER="0")  # fmt: skip
    with open(os.devnull, "rb") as devnull:
        got = subprocess.run(
            [sys.executable, "-m", "zirv_dash.cli.main", "agent", "demo", "say hi", "--json"],
            cwd=repo, env=env, stdin=devnull, capture_output=True, text=True, timeout=30,
        )  # fmt: skip
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["session"] and sessions(state) == []


def test_headless_inline_timeout_and_sigterm_leave_no_record(state: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "inline")
    got = zirv(["shell", "x", "--timeout", "1", "--json"], repo, state)
    assert got.returncode == 124 and "timeout" in json.loads(got.stdout)["reason"]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZIRV_")}
    env.update(ZIRV_CTX_STATE_DIR=str(state), ZIRV_HOME=str(tmp_path / "home"), SHELL="/bin/sh")
    proc = subprocess.Popen(
        [sys.executable, "-m", "zirv_dash.cli.main", "agent", "shell", "x", "--json"],
        cwd=repo, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 20
    while not sessions(state):
        if proc.poll() is not None:
            raise AssertionError(f"ended before registering: {proc.communicate()}")
        assert time.monotonic() < deadline, "never registered"
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=20)
    assert proc.returncode == 128 + signal.SIGTERM
    assert "stopped by signal" in json.loads(out)["reason"]
    assert sessions(state) == []


# --- fuzz: decoders raise only their own error ------------------------------------------------

TRICKY = st.sampled_from([LONE, "\udfff", "\x00", "a\n", "-x", "--model=X", "", " ", "é"])
TEXT = st.text(max_size=20) | TRICKY
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)


def field_names(record: type) -> list[str]:
    """A record's field names, whether it is a dataclass or a msgspec struct."""
    if dataclasses.is_dataclass(record):
        return [f.name for f in dataclasses.fields(record)]
    return list(getattr(record, "__struct_fields__", ()))


REQUEST_FIELDS = [f.name for f in msgspec.structs.fields(spawn.SpawnRequest)]
HANDOVER_FIELDS = field_names(handover_files.HandoverRequest)
ACK_FIELDS = ["ok", "short", "reason", "retryable", "budget_exhausted", "capability_warnings",
              "from_agent", "from_model", "to_agent", "to_model", "stored"]  # fmt: skip


def shaped(
    names: list[str], required: dict[str, st.SearchStrategy[Any]] | None = None
) -> st.SearchStrategy[Any]:
    """Objects that carry the decoder's own field names (required ones present and of
    the right type, so fuzzing gets past the first checks) with any JSON or tricky
    text as values; sometimes any JSON at all."""
    optional = {name: JSON | TEXT for name in names if name not in (required or {})}
    return st.fixed_dictionaries(required or {}, optional=optional) | JSON


REQUEST = shaped(REQUEST_FIELDS, {n: TEXT for n in ("agent", "prompt", "cwd", "requested_by")})
ACK = shaped(ACK_FIELDS, {"ok": st.booleans()})
HANDOVER_REQ = shaped(HANDOVER_FIELDS, {"target_agent": TEXT})


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(REQUEST)
def test_fuzz_spawn_request(obj: Any) -> None:
    try:
        req = spawn.SpawnRequest.from_json(obj)
    except spawn.RequestError:
        return
    for value in msgspec.structs.asdict(req).values():  # whatever decodes is usable text
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str):
                text.encode("utf-8")
                assert "\x00" not in text


@FUZZ
@given(ACK)
def test_fuzz_spawn_ack(obj: Any) -> None:
    ack = spawn.SpawnAck.from_json(obj)
    if ack is not None:
        json.dumps(ack.to_json(), ensure_ascii=False).encode("utf-8")


@FUZZ
@given(HANDOVER_REQ)
def test_fuzz_handover_request(obj: Any) -> None:
    try:
        handover_files.HandoverRequest.from_dict(obj)
    except handover_files.HandoverRecordError:
        pass


@FUZZ
@given(ACK)
def test_fuzz_handover_ack(obj: Any) -> None:
    try:
        handover_files.HandoverAck.from_dict(obj)
    except handover_files.HandoverRecordError:
        pass


@FUZZ
@given(st.binary(max_size=200) | JSON.map(lambda v: json.dumps(v).encode()))
def test_fuzz_claimed_file(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    channel = tmp_path_factory.mktemp("chan")
    (channel / "req-fuzz.json").write_bytes(data)
    for claimed in spawn.claim_requests(channel):
        assert (claimed.request, claimed.kill, claimed.error).count(None) == 2
    assert not list(channel.glob("req-*"))
