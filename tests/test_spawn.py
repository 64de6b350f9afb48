"""Spawn-request channel: layout, request/ack protocol, hostile input, validation."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import pytest

from zirv_dash import paths, records, spawn
from zirv_dash.config.layers import AdapterGate
from zirv_dash.harnesses.adapters import ADAPTERS
from zirv_dash.spawn import (
    Claimed,
    DashChannel,
    SpawnAck,
    SpawnRequest,
    ValidationContext,
)

DATA = Path(__file__).parent / "data" / "spawn"


# --- fixtures and the fake dashboard ----------------------------------------------


def git(*args: str, cwd: Path) -> str:
    out = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True,
        env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
             "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"},
    )  # fmt: skip
    return out.stdout


def make_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    git("init", "-q", cwd=path)
    git("commit", "-q", "--allow-empty", "-m", "init", cwd=path)
    return path.resolve()


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    st = tmp_path / "state"
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(st))
    monkeypatch.delenv("ZIRV_CTX_DASH_REQUESTS", raising=False)
    monkeypatch.delenv("ZIRV_CTX_SESSION", raising=False)
    return paths.state_dir()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "work" / "repo")


@dataclass
class Spawned:
    short: str
    request: SpawnRequest
    decision: spawn.Decision
    argv: list[str]
    env: dict[str, str]
    channel: Path
    parent: str | None


@dataclass
class FakeDashboard:
    """A minimal dashboard loop built only from the spawn module's public API."""

    state: Path
    repo: Path
    max_panes: int = 9
    gate: AdapterGate = field(default_factory=lambda: AdapterGate({"codex": "disabled in test"}))
    extra_live: set[str] = field(default_factory=lambda: {"live0001"})
    channel: DashChannel | None = None
    spawned: list[Spawned] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    logged: list[str] = field(default_factory=list)
    killed: list[str] = field(default_factory=list)
    pane_channels: dict[Path, tuple[str, spawn.Role]] = field(default_factory=dict)
    parents: dict[str, str | None] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None
    _current: Path = Path()
    crashed: BaseException | None = None

    def start(self, serve: bool = True) -> FakeDashboard:
        spawn.sweep_stale_token_dirs(self.state)
        self.channel = DashChannel.create(self.state, "dashaaaa")
        if serve:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        assert self.channel is not None
        self.channel.remove()

    def add_pane(self, short: str, role: spawn.Role, parent: str | None = None) -> Path:
        assert self.channel is not None
        chan = self.channel.mint_pane_channel()
        self.pane_channels[chan] = (short, role)
        self.parents[short] = parent
        return chan

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.sweep()
            except BaseException as exc:  # noqa: BLE001 - the test asserts on it
                self.crashed = exc
                raise
            self._stop.wait(0.01)

    def sweep(self) -> int:
        assert self.channel is not None
        n = 0
        for chan in self.channel.channels():
            for claimed in spawn.claim_requests(chan):
                n += 1
                self.handle(claimed)
        return n

    def ctx(self, chan: Path) -> ValidationContext:
        owner = self.pane_channels.get(chan)
        live = {s.short for s in self.spawned} | self.extra_live
        return ValidationContext(
            repo=self.repo,
            live_panes=len(self.spawned),
            max_panes=self.max_panes,
            gate=self.gate,
            channel_owner_role=owner[1] if owner else None,
            channel_owner_short=owner[0] if owner else None,
            live_shorts=live,
        )

    def handle(self, claimed: Claimed) -> None:
        with self.lock:
            self._current = claimed.channel
            result = spawn.fulfil(
                claimed, self.ctx(claimed.channel), self.launch, self.killed.append, self.parents
            )
        if result.ack is None:
            self.logged.extend(result.errors)
        elif not result.ack.ok:
            self.refused.append(result.ack.reason or "")

    def launch(self, decision: spawn.Decision) -> str:
        assert decision.adapter is not None and decision.request is not None
        if decision.request.prompt == "explode":
            raise OSError("no PTY left")
        argv, env = spawn.build_launch(decision.request, decision.adapter, decision.headless)
        short = paths.short_id(paths.new_session_id())
        self.spawned.append(
            Spawned(short, decision.request, decision, argv, env, self._current, decision.parent)
        )
        self.parents[short] = decision.parent
        return short


@pytest.fixture
def dash(state: Path, repo: Path) -> Iterator[FakeDashboard]:
    d = FakeDashboard(state, repo).start()
    yield d
    d.stop()
    assert d.crashed is None


@pytest.fixture
def idle_dash(state: Path, repo: Path) -> Iterator[FakeDashboard]:
    """A dashboard whose loop the test drives by hand (`sweep()`)."""
    d = FakeDashboard(state, repo).start(serve=False)
    yield d
    d.stop()


def minimal(repo: Path, **extra: object) -> dict[str, object]:
    return {"agent": "demo", "prompt": "say hi", "cwd": str(repo), "requested_by": "sess-1",
            **extra}  # fmt: skip


def request_and_wait(chan: Path, req: dict[str, object], timeout: float = 5.0) -> spawn.AckWait:
    return spawn.wait_for_ack(spawn.write_request(chan, req), timeout=timeout, poll=0.01)


def dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


# --- channel layout ------------------------------------------------------------------


def test_channel_layout_and_remove(state: Path) -> None:
    ch = DashChannel.create(state, "abcd1234-uuid-rest")
    assert ch.root.parent == state / "dash"
    assert spawn.TOKEN_DIR_RE.match(ch.root.name)
    assert ch.root.name.startswith("abcd1234-")
    assert (ch.root / "owner.pid").read_text().strip() == str(os.getpid())
    assert ch.requests.is_dir()
    assert stat.S_IMODE(ch.root.stat().st_mode) == 0o700
    assert stat.S_IMODE((ch.root / "owner.pid").stat().st_mode) == 0o600
    p1, p2 = ch.mint_pane_channel(), ch.mint_pane_channel()
    assert p1 != p2 and spawn.PANE_CHANNEL_RE.match(p1.name)
    assert stat.S_IMODE(p1.stat().st_mode) == 0o700
    assert ch.channels() == [ch.requests, *sorted([p1, p2])]
    assert spawn.owner_alive(ch.root) == os.getpid()
    assert not [p for p in (state / "dash").iterdir() if p.name.startswith(".")]
    ch.remove()
    assert not ch.root.exists()


def test_sweep_removes_only_dead_dashboards(state: Path, tmp_path: Path) -> None:
    live = DashChannel.create(state, "live1111")
    dead = DashChannel.create(state, "dead2222", pid=dead_pid())
    garbage_old = state / "dash" / "junk3333-0123456789abcdef"
    garbage_old.mkdir()
    (garbage_old / "owner.pid").write_text("not a pid")
    os.utime(garbage_old, (time.time() - 3600, time.time() - 3600))
    garbage_new = state / "dash" / "junk4444-0123456789abcdef"
    garbage_new.mkdir()
    unrelated = state / "dash" / "not-a-token-dir"
    unrelated.mkdir()
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "keep").write_text("x")
    link = state / "dash" / "link5555-0123456789abcdef"
    link.symlink_to(outside)
    roster = state / "dash" / "roster-x.json"
    roster.write_text("{}")

    removed = spawn.sweep_stale_token_dirs(state)

    assert sorted(removed) == sorted([dead.root, garbage_old])
    assert live.root.is_dir() and garbage_new.is_dir() and unrelated.is_dir()
    assert link.is_symlink() and (outside / "keep").exists() and roster.exists()


def test_owner_pid_reuse_counts_as_dead(state: Path) -> None:
    # A live pid whose process started long after owner.pid was written is a reused pid.
    ch = DashChannel.create(state, "reuse111")
    old = time.time() - 3600
    os.utime(ch.root / "owner.pid", (old, old))
    assert spawn.owner_alive(ch.root) is None


# --- requester side -------------------------------------------------------------------


def test_write_request_is_atomic_and_private(state: Path) -> None:
    ch = DashChannel.create(state, "abcd1234")
    path = spawn.write_request(ch.requests, {"agent": "demo", "prompt": "x"})
    assert path.name.startswith("req-") and path.name.endswith(".json")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(path.read_text()) == {"agent": "demo", "prompt": "x"}
    assert [p.name for p in ch.requests.iterdir()] == [path.name]


def test_wait_unanswered_withdraws_the_request(state: Path) -> None:
    ch = DashChannel.create(state, "abcd1234")
    req = spawn.write_request(ch.requests, {"agent": "demo"})
    got = spawn.wait_for_ack(req, timeout=0.05, poll=0.01)
    assert got.status == "unanswered" and "did not answer" in got.message
    assert list(ch.requests.iterdir()) == []


def test_wait_claimed_but_never_acked(state: Path) -> None:
    ch = DashChannel.create(state, "abcd1234")
    req = spawn.write_request(ch.requests, {"agent": "demo"})
    claims = spawn.claim_requests(ch.requests)
    assert len(claims) == 1
    got = spawn.wait_for_ack(req, timeout=0.05, claim_extension=0.05, poll=0.01)
    assert got.status == "claimed_no_ack"
    assert "claimed the request but never confirmed" in got.message


def test_claim_extension_waits_for_a_late_ack(state: Path) -> None:
    ch = DashChannel.create(state, "abcd1234")
    req = spawn.write_request(ch.requests, {"agent": "demo"})
    (claim,) = spawn.claim_requests(ch.requests)
    ticks = iter(range(1000))

    def clock() -> float:
        return float(next(ticks))

    def sleep(_: float) -> None:
        # The dashboard answers only after the first deadline has passed.
        if clock() > 8:
            spawn.write_ack(ch.requests, claim.req_id, SpawnAck.spawned("late0001"))

    got = spawn.wait_for_ack(req, timeout=5, claim_extension=1000, clock=clock, sleep=sleep)
    assert got.status == "acked" and got.ack is not None and got.ack.short == "late0001"
    assert not spawn.ack_path(ch.requests, claim.req_id).exists()


def test_garbage_ack_is_not_trusted(state: Path) -> None:
    ch = DashChannel.create(state, "abcd1234")
    req = spawn.write_request(ch.requests, {"agent": "demo"})
    spawn.ack_path(ch.requests, spawn.request_id(req)).write_text("[not an ack")
    got = spawn.wait_for_ack(req, timeout=1, poll=0.01)
    assert got.status == "claimed_no_ack"


def test_request_ack_roundtrip(dash: FakeDashboard, repo: Path) -> None:
    assert dash.channel is not None
    got = request_and_wait(dash.channel.requests, minimal(repo))
    assert got.status == "acked" and got.ack is not None
    assert got.ack.ok and got.ack.short == dash.spawned[0].short and len(got.ack.short) == 8
    assert list(dash.channel.requests.iterdir()) == []  # req, claim and ack all gone


def test_concurrent_requesters_threads_and_processes(dash: FakeDashboard, repo: Path) -> None:
    assert dash.channel is not None
    dash.max_panes = 64
    chan = dash.channel.requests
    results: list[spawn.AckWait] = []
    lock = threading.Lock()

    def one(i: int) -> None:
        got = request_and_wait(chan, minimal(repo, prompt=f"task {i}"))
        with lock:
            results.append(got)

    script = (
        "import sys, json; from pathlib import Path; from zirv_dash import spawn\n"
        "got = spawn.wait_for_ack(spawn.write_request(Path(sys.argv[1]), json.loads(sys.argv[2])),"
        " poll=0.01)\n"
        "print(json.dumps({'status': got.status, 'short': got.ack.short if got.ack else None}))\n"
    )
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", script, str(chan), json.dumps(minimal(repo, prompt=f"p{i}"))],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        for i in range(4)
    ]
    threads = [threading.Thread(target=one, args=(i,)) for i in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    outs = [json.loads(p.communicate(timeout=10)[0]) for p in procs]

    assert all(r.status == "acked" and r.ack is not None and r.ack.ok for r in results)
    assert all(o["status"] == "acked" for o in outs)
    shorts = [r.ack.short for r in results if r.ack] + [o["short"] for o in outs]
    assert len(shorts) == 16 and len(set(shorts)) == 16
    assert sorted(shorts) == sorted(s.short for s in dash.spawned)
    prompts = sorted(s.request.prompt for s in dash.spawned)
    assert prompts == sorted([f"task {i}" for i in range(12)] + [f"p{i}" for i in range(4)])
    assert list(chan.iterdir()) == []


def test_launch_failure_is_retryable(dash: FakeDashboard, repo: Path) -> None:
    assert dash.channel is not None
    got = request_and_wait(dash.channel.requests, minimal(repo, prompt="explode"))
    assert got.ack is not None and not got.ack.ok and got.ack.retryable
    assert got.ack.reason == "pane spawn failed: no PTY left"
    assert list(dash.channel.requests.iterdir()) == []


def test_pane_cap(dash: FakeDashboard, repo: Path) -> None:
    assert dash.channel is not None
    dash.max_panes = 2
    for _ in range(2):
        assert request_and_wait(dash.channel.requests, minimal(repo)).ack.ok  # type: ignore[union-attr]
    got = request_and_wait(dash.channel.requests, minimal(repo))
    assert got.ack is not None and not got.ack.ok and not got.ack.retryable
    assert got.ack.reason == "pane limit reached (2 live panes, dash.max_panes = 2)"


# --- hostile corpus -------------------------------------------------------------------


def test_hostile_corpus(idle_dash: FakeDashboard, repo: Path, tmp_path: Path) -> None:
    assert idle_dash.channel is not None
    chan = idle_dash.channel.requests
    expected = json.loads((DATA / "expected.json").read_text())
    expected.pop("_comment")
    files = sorted(p.name for p in DATA.glob("*.json") if p.name != "expected.json")
    assert sorted(expected) == files, "every corpus file needs an expectation"
    for name in files:
        rid = name.removesuffix(".json").replace("_", "-")
        raw = (DATA / name).read_bytes().replace(b"@REPO@", str(repo).encode())
        (chan / f"req-{rid}.json").write_bytes(raw)
    # Generated cases that cannot live in the repo as plain files.
    target = tmp_path / "secret.json"
    target.write_text(json.dumps(minimal(repo)))
    (chan / "req-symlink.json").symlink_to(target)
    os.mkfifo(chan / "req-fifo.json")
    (chan / "req-directory.json").mkdir()
    (chan / "req-directory.json" / "inner").write_text("x")
    (chan / "req-huge.json").write_bytes(b" " * (spawn.MAX_REQUEST_BYTES + 10) + b"{}")
    (chan / "req-deep.json").write_bytes(b"[" * 100_000 + b"]" * 100_000)
    (chan / "req-longmodel.json").write_text(json.dumps(minimal(repo, model="m" * 129)))
    (chan / "req-bad name!.json").write_text("{}")
    generated = {
        "symlink": "request is a symlink",
        "fifo": "request is not a regular file",
        "directory": "request is not a regular file",
        "huge": "request is too large",
        "deep": "malformed JSON: nested too deeply",
        "longmodel": "model refused: longer than 128 characters",
    }
    (chan / "req-valid.json").write_text(json.dumps(minimal(repo)))

    started = time.monotonic()
    idle_dash.sweep()
    assert time.monotonic() - started < 10  # the FIFO never blocked the loop

    def ack(rid: str) -> dict[str, object] | None:
        path = spawn.ack_path(chan, rid)
        return json.loads(path.read_text()) if path.exists() else None

    for name, want in expected.items():
        rid = name.removesuffix(".json").replace("_", "-")
        got = ack(rid)
        if want.get("noack"):
            assert got is None, name
            continue
        assert got is not None, name
        if want.get("ok"):
            assert got["ok"] is True, (name, got)
            continue
        reason = want["reason"].replace("@REPO@", str(repo))
        assert got["ok"] is False and reason in str(got["reason"]), (name, got)
        assert got["retryable"] is want["retryable"], (name, got)
    for rid, reason in generated.items():
        got = ack(rid)
        assert got is not None and reason in str(got["reason"]), (rid, got)
    valid = ack("valid")
    assert valid is not None and valid["short"] in {s.short for s in idle_dash.spawned}
    assert valid == {"ok": True, "short": valid["short"], "reason": None,
                     "retryable": False, "budget_exhausted": False}  # fmt: skip
    assert len(idle_dash.spawned) == 3  # valid, widening_stripped, extra_fields_ok
    # Nothing is left behind but the acks, and the symlink's target is untouched.
    leftovers = [p.name for p in chan.iterdir() if not p.name.startswith("ack-")]
    assert leftovers == []
    assert target.exists()
    assert any("the shared channel cannot kill" in line for line in idle_dash.logged)
    assert any("request name 'req-bad name!.json' is not valid" in line or
               "request name req-bad name!.json is not valid" in line
               for line in idle_dash.logged)  # fmt: skip
    # The widening fields of a file drop were stripped before launch.
    widened = next(s for s in idle_dash.spawned if s.request.timeout_secs)
    assert widened.request.flags == [] and widened.request.interactive is False
    assert widened.request.timeout_secs == spawn.MAX_TIMEOUT_SECS
    assert "--dangerously-skip-permissions" not in widened.argv
    assert widened.env == {"ZIRV_CTX_HEADLESS": "1"}
    named = next(s for s in idle_dash.spawned if s.request.name)
    assert named.request.name == "\\x1b]0;pwned\\x07"
    # Control characters in reasons are escaped, never passed through.
    assert all("\x1b" not in r and "\n" not in r for r in idle_dash.refused)
    # The dashboard is still alive: a normal request after all that still spawns.
    (chan / "req-after.json").write_text(json.dumps(minimal(repo)))
    idle_dash.sweep()
    assert ack("after")["ok"] is True  # type: ignore[index]


def test_claim_batch_and_prune(idle_dash: FakeDashboard, repo: Path) -> None:
    assert idle_dash.channel is not None
    chan = idle_dash.channel.requests
    for i in range(5):
        spawn.write_request(chan, {"kill": f"x{i}"})
    first = spawn.claim_requests(chan, limit=3)
    assert len(first) == 3 and all(c.kill for c in first)
    assert len(spawn.claim_requests(chan, limit=3)) == 2
    for c in first:
        spawn.answer(c, SpawnAck.refused("no"))
    (chan / "req-abc.json.tmp-1").write_text("{")
    (chan / "unrelated").write_text("x")
    assert spawn.prune_channel(chan, max_age_secs=60) == 0
    later = time.time() + 120
    # The 3 answered acks, the 2 unanswered claims and the temp file are leftovers.
    assert spawn.prune_channel(chan, max_age_secs=60, now=later) == 6
    assert [p.name for p in chan.iterdir()] == ["unrelated"]


def test_requests_without_json_suffix_or_tmp_are_ignored(idle_dash: FakeDashboard) -> None:
    assert idle_dash.channel is not None
    chan = idle_dash.channel.requests
    (chan / "req-abc.json.tmp-123").write_text("{half")
    (chan / "notes.txt").write_text("x")
    assert idle_dash.sweep() == 0
    assert (chan / "req-abc.json.tmp-123").exists()


# --- validation -------------------------------------------------------------------------


def ctx_for(repo: Path, **kw: object) -> ValidationContext:
    return ValidationContext(repo=repo, **kw)  # type: ignore[arg-type]


def req_for(repo: Path, **kw: object) -> SpawnRequest:
    return SpawnRequest.from_json(minimal(repo, **kw))


def test_linked_worktree_and_subdir_are_the_same_repo(repo: Path, tmp_path: Path) -> None:
    wt = tmp_path / "work" / "repo-wt"
    git("worktree", "add", "-q", str(wt), cwd=repo)
    d = spawn.validate(req_for(repo, cwd=str(wt)), ctx_for(repo))
    assert d.ok and d.cwd == wt.resolve()
    other = make_repo(tmp_path / "work" / "other")
    d = spawn.validate(req_for(repo, cwd=str(other)), ctx_for(repo))
    assert not d.ok and d.retryable and "only spawns panes in its own repo" in (d.reason or "")


def test_workdir_roots_component_wise(repo: Path, tmp_path: Path) -> None:
    assert spawn.is_within(Path("/a/b/c"), Path("/a/b"))
    assert not spawn.is_within(Path("/a/bc"), Path("/a/b"))
    assert spawn.is_within(Path("/a/b"), Path("/a/b"))
    elsewhere = make_repo(tmp_path / "elsewhere" / "checkout")
    d = spawn.validate(req_for(repo, workdir=str(elsewhere)), ctx_for(repo))
    assert not d.ok and not d.retryable
    assert d.reason == (
        f"workdir {elsewhere} is outside the dashboard's workdir roots ({repo}, {repo.parent}); "
        f"run `zirv ctx config add dash.workdir_roots '{elsewhere}'` "
        "(asks the operator for approval)"
    )
    d = spawn.validate(
        req_for(repo, workdir=str(elsewhere)),
        ctx_for(repo, workdir_roots=[str(tmp_path / "elsewhere")]),
    )
    assert d.ok and d.workdir == elsewhere and d.run_dir == elsewhere
    sibling = make_repo(tmp_path / "work" / "sibling")  # inside the repo's parent
    assert spawn.validate(req_for(repo, workdir=str(sibling)), ctx_for(repo)).ok
    plain = tmp_path / "work" / "plain"
    plain.mkdir()
    d = spawn.validate(req_for(repo, workdir=str(plain)), ctx_for(repo))
    assert not d.ok and "not inside a git repository" in (d.reason or "")
    # A symlink inside the roots that points outside is judged by its target.
    link = repo / "escape"
    link.symlink_to(tmp_path / "elsewhere" / "checkout")
    d = spawn.validate(req_for(repo, workdir=str(link)), ctx_for(repo))
    assert not d.ok and "outside the dashboard's workdir roots" in (d.reason or "")


def test_validation_order_cheapest_first(repo: Path) -> None:
    # A request wrong in every way is refused for the first check in the order.
    req = req_for(repo, prompt="-x", cwd="/", agent="nope", model="--bad")
    assert spawn.validate(req, ctx_for(repo, live_panes=99)).reason == spawn.ARGV_GUARD
    req = req_for(repo, cwd="/", agent="nope")
    d = spawn.validate(req, ctx_for(repo, live_panes=99))
    assert d.retryable and "own repo" in (d.reason or "")
    req = req_for(repo, agent="nope")
    assert "pane limit" in (spawn.validate(req, ctx_for(repo, live_panes=99)).reason or "")


def test_private_channel_parent_and_depth(repo: Path) -> None:
    orch = ctx_for(repo, channel_owner_role="orchestrator", channel_owner_short="orch0001")
    d = spawn.validate(req_for(repo, parent_session="orch0001-xxxx"), orch)
    assert d.ok and d.parent == "orch0001"
    d = spawn.validate(req_for(repo, parent_session="someone1"), orch)
    assert not d.ok and not d.retryable and "does not match the requesting pane" in (d.reason or "")
    d = spawn.validate(req_for(repo, role="sub-orchestrator"), orch)
    assert d.ok and d.role == "sub-orchestrator"
    d = spawn.validate(req_for(repo, role="anything-else"), orch)
    assert d.ok and d.role == "worker"
    worker = ctx_for(repo, channel_owner_role="worker", channel_owner_short="wrk00001")
    assert spawn.validate(req_for(repo), worker).reason == (
        "a worker may not delegate onward (delegation depth cap: 2)"
    )
    sub = ctx_for(repo, channel_owner_role="sub-orchestrator", channel_owner_short="sub00001")
    assert spawn.validate(req_for(repo, role="sub-orchestrator"), sub).reason == (
        "a sub-orchestrator may not spawn another (delegation depth cap: 2)"
    )
    assert spawn.validate(req_for(repo), sub).ok
    shared = ctx_for(repo, live_shorts={"abcd1234"})
    d = spawn.validate(req_for(repo, parent_session="abcd1234"), shared)
    assert not d.ok and d.retryable
    d = spawn.validate(req_for(repo, parent_session="gone0000"), shared)
    assert d.ok and d.parent is None  # the claim is never the verified parent


def test_file_drop_vs_dialog_posture(repo: Path) -> None:
    raw = minimal(repo, force=True, flags=["--x"], interactive=True, timeout_secs=10**12)
    d = spawn.validate(SpawnRequest.from_json(raw), ctx_for(repo))
    assert d.ok and d.headless and d.request is not None
    assert (d.request.force, d.request.flags, d.request.interactive) == (False, [], False)
    assert d.request.timeout_secs == spawn.MAX_TIMEOUT_SECS
    d = spawn.validate(SpawnRequest.from_json(raw), ctx_for(repo, file_drop=False))
    assert d.ok and not d.headless and d.request is not None and d.request.flags == ["--x"]


def test_model_revalidation() -> None:
    assert spawn.model_refusal("claude-sonnet-4.5") is None
    assert spawn.model_refusal("openrouter/anthropic/claude:beta@v1") is None
    assert spawn.model_refusal("-m") is not None
    assert spawn.model_refusal(" --x") is not None
    assert spawn.model_refusal("a b") is not None
    assert spawn.model_refusal("x" * 129) is not None
    assert spawn.model_refusal("x" * 128) is None


def test_system_prompt_is_capped(repo: Path) -> None:
    req = req_for(repo, system_prompt="é" * 20000)
    assert req.system_prompt is not None
    assert len(req.system_prompt.encode()) <= spawn.SYSTEM_PROMPT_CAP


def test_request_json_roundtrip(repo: Path) -> None:
    req = SpawnRequest(agent="demo", prompt="p", cwd=str(repo), requested_by="unknown",
                       model="m", timeout_secs=5)  # fmt: skip
    wire = req.to_json()
    assert wire == {"agent": "demo", "prompt": "p", "cwd": str(repo), "requested_by": "unknown",
                    "model": "m", "timeout_secs": 5}  # fmt: skip
    assert SpawnRequest.from_json(wire) == req
    assert SpawnRequest.from_json({"agent": "codex", "prompt": "do the thing", "cwd": ".",
                                   "requested_by": "sess-1"}).mode == "writing"  # fmt: skip


# --- the typed decode -------------------------------------------------------------------

REQUEST_FIELDS = [f.name for f in msgspec.structs.fields(SpawnRequest)]


@pytest.mark.parametrize("name", REQUEST_FIELDS)
def test_a_wrong_type_is_refused_naming_the_field(repo: Path, name: str) -> None:
    # An object is the wrong type for every field the request declares.
    with pytest.raises(spawn.RequestError) as caught:
        SpawnRequest.from_json(minimal(repo, **{name: {"not": "right"}}))
    assert f"field `{name}`" in str(caught.value), str(caught.value)
    assert isinstance(caught.value, records.RecordError)  # the one strict decoder's error


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        ({"depth": 256}, "field `depth` is out of range (0..255)"),
        ({"max_restarts": -1}, "field `max_restarts` is out of range (0..4294967295)"),
        ({"timeout_secs": 2**64}, "field `timeout_secs` is out of range (0..18446744073709551615)"),
        ({"budget_tokens": True}, "field `budget_tokens` must be a whole number, not a boolean"),
        ({"worktree": 1}, "field `worktree` must be true or false, not a number"),
        ({"flags": ["a", 2]}, "field `flags` must be a list of strings"),
        ({"mode": "yolo"}, 'field `mode` must be "read-only" or "writing", not yolo'),
        ({"name": 3, "agent": 4}, "field `agent` must be a string, not a number"),
        ({"path_scope": ["ok", "a\x00b"]}, "field `path_scope[1]` contains a NUL character"),
    ],
)
def test_refusals_name_the_field_in_declared_order(
    repo: Path, fields: dict[str, object], reason: str
) -> None:
    # Keys are given in reverse: the record's declared order decides what is named.
    body = dict(reversed(list(minimal(repo, **fields).items())))
    with pytest.raises(spawn.RequestError, match="^" + re.escape(reason) + "$"):
        SpawnRequest.from_json(body)


def test_nulls_take_defaults_and_unknown_fields_are_ignored(repo: Path) -> None:
    req = SpawnRequest.from_json(
        minimal(repo, interactive=None, flags=None, mode=None, timeout_secs=2**64 - 1,
                later_field={"x": [1]})
    )  # fmt: skip
    assert (req.interactive, req.flags, req.mode) == (False, [], "writing")
    assert req.timeout_secs == 2**64 - 1
    with pytest.raises(spawn.RequestError, match="missing the required field `cwd`"):
        SpawnRequest.from_json({"agent": 7, "prompt": "p", "requested_by": "x"})


def test_ack_decode_is_strict() -> None:
    good = spawn.decode_ack({"ok": True, "short": "abcd1234", "later": 1, "reason": None})
    assert good == SpawnAck(ok=True, short="abcd1234")
    assert spawn.decode_ack({"ok": True, "short": "abcd1234", "retryable": "yes"}) is None
    assert spawn.decode_ack({"ok": "true"}) is None
    assert spawn.decode_ack([True]) is None
    # The wire form the dashboard writes is unchanged: every field, no empty warnings.
    assert SpawnAck.refused("no", retryable=True).to_json() == {
        "ok": False, "short": None, "reason": "no", "retryable": True, "budget_exhausted": False,
    }  # fmt: skip


def test_relative_cwd_is_the_repo(repo: Path) -> None:
    d = spawn.validate(req_for(repo, cwd="."), ctx_for(repo))
    assert d.ok and d.cwd == repo


# --- kill -------------------------------------------------------------------------------


def test_authorize_kill() -> None:
    parents: dict[str, str | None] = {"orch0001": None, "wrk00001": "orch0001",
                                      "sub00001": "orch0001", "wrk00002": "sub00001"}  # fmt: skip
    assert spawn.authorize_kill("wrk00002", "sub00001", parents).ok
    assert spawn.authorize_kill("sub00001", "sub00001", parents).ok
    assert spawn.authorize_kill("wrk00002", "orch0001", parents).ok
    no = spawn.authorize_kill("wrk00001", "sub00001", parents)
    assert not no.ok and no.send_ack and "only stop itself" in (no.reason or "")
    shared = spawn.authorize_kill("wrk00001", None, parents)
    assert not shared.ok and not shared.send_ack
    assert not spawn.authorize_kill("zzzz0000", "orch0001", parents).ok
    cyclic: dict[str, str | None] = {"a": "b", "b": "a"}
    assert not spawn.authorize_kill("a", "c", {**cyclic, "c": None}).ok


def test_kill_on_own_channel(dash: FakeDashboard, repo: Path) -> None:
    chan = dash.add_pane("sub00001", "sub-orchestrator", "orch0001")
    got = request_and_wait(chan, minimal(repo))
    assert got.ack is not None and got.ack.ok and dash.spawned[-1].parent == "sub00001"
    child = got.ack.short
    assert child is not None
    dash.parents["other001"] = "orch0001"
    refused = request_and_wait(chan, {"kill": "other001"})
    assert refused.ack is not None and not refused.ack.ok
    ok = request_and_wait(chan, {"kill": child})
    assert ok.ack is not None and ok.ack.ok and ok.ack.short == child
    assert dash.killed == [child]


# --- launch -----------------------------------------------------------------------------


def test_build_launch_prompt_is_one_element(repo: Path) -> None:
    req = req_for(repo, prompt="fix it; rm -rf / --force", model="opus")
    argv, env = spawn.build_launch(req, ADAPTERS["claude"], headless=True)
    assert argv[:2] == ["claude", "fix it; rm -rf / --force"]
    assert argv[2:] == ["--model", "opus", "--permission-mode", "dontAsk"]
    assert env == {"ZIRV_CTX_HEADLESS": "1"}
    argv, env = spawn.build_launch(req, ADAPTERS["codex"], headless=False)
    assert "on-request" in argv and env == {"ZIRV_CTX_LAUNCH_MODE": "interactive"}
    for forbidden in ("acceptEdits", "bypassPermissions",
                      "--dangerously-bypass-approvals-and-sandbox"):  # fmt: skip
        for name in ("claude", "codex"):
            for headless in (True, False):
                assert forbidden not in spawn.build_launch(req, ADAPTERS[name], headless)[0]


# --- discovery --------------------------------------------------------------------------


def test_live_dashboards_order(state: Path, repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sleepers = [subprocess.Popen(["sleep", "30"]) for _ in range(4)]
    try:
        chans = {}
        for i, name in enumerate(["inhe", "host", "repo", "any1", "any2"]):
            pid = sleepers[i].pid if i < 4 else sleepers[3].pid
            chans[name] = DashChannel.create(state, f"{name}0000", pid=pid)
            t = time.time() + i * 0.01
            os.utime(chans[name].root / "owner.pid", (t, t))
        dead = DashChannel.create(state, "dead0000", pid=dead_pid())
        sessions = state / "sessions"
        sessions.mkdir()
        me = "meme1234-5678"
        (sessions / "meme1234.json").write_text(
            json.dumps(
                {
                    "session": me,
                    "short": "meme1234",
                    "pid": os.getpid(),
                    "owner_pid": sleepers[1].pid,
                }
            )
        )
        (sessions / "repo0000.json").write_text(
            json.dumps(
                {
                    "session": "repo0000-x",
                    "short": "repo0000",
                    "pid": os.getpid(),
                    "verb": "dash",
                    "repo": str(repo),
                }
            )
        )
        (sessions / "garbage1.json").write_text("{{{{")
        # A record the registry's decoder refuses is not trusted, even naming the caller.
        (sessions / "forged01.json").write_text(
            json.dumps(
                {
                    "session": me,
                    "short": "forged01",
                    "pid": "not a pid",
                    "owner_pid": sleepers[2].pid,
                }
            )
        )
        pane = chans["inhe"].mint_pane_channel()
        env = {"ZIRV_CTX_DASH_REQUESTS": str(pane), "ZIRV_CTX_SESSION": me}
        notes: list[str] = []
        got = spawn.live_dashboards(state, env, repo, notes)
        assert [t.why for t in got] == ["inherited", "hosting", "repo", "any", "any"]
        assert [t.token_dir for t in got] == [chans[n].root for n in
                                              ("inhe", "host", "repo", "any2", "any1")]  # fmt: skip
        assert got[0].channel == pane and got[0].private
        assert all(not t.private for t in got[1:])
        assert any("names dead pid" in n and dead.root.name in n for n in notes)
        # A dead inherited channel is noted and discovery takes over.
        sleepers[0].kill()
        sleepers[0].wait()
        notes.clear()
        got = spawn.live_dashboards(state, env, repo, notes)
        assert got[0].why == "hosting"
        assert "inherited dashboard channel" in notes[0]
    finally:
        for p in sleepers:
            p.kill()
            p.wait()


def test_no_dashboards(state: Path) -> None:
    assert spawn.live_dashboards(state, {}, None) == []


# --- the package keeps the single module's names ------------------------------------------

FORMER_SPAWN_NAMES = """
ACK_TIMEOUT_SECS ARGV_GUARD AckStatus AckWait CLAIM_BATCH CLAIM_EXTENSION_SECS Claimed DASH_DIR
DashChannel DashTarget Decision Fulfilment GIT_CACHE_MAX Gate KillDecision LEFTOVER_MAX_AGE_SECS
MAX_ACK_BYTES MAX_REQUEST_BYTES MAX_TIMEOUT_SECS MODEL_MAX_CHARS MODEL_RE OWNER_PID PANE_CHANNEL_RE
PID_REUSE_SLACK_SECS POLL_SECS REQUESTS_DIR REQ_ID_RE RESTART_ENV_HEADLESS RESTART_ENV_INTERACTIVE
RequestError Role SHORT_RE STALE_GRACE_SECS SWEEP_BUDGET SYSTEM_PROMPT_CAP SpawnAck SpawnRequest
TOKEN_DIR_RE ValidationContext ack_path answer authorize_kill build_launch claim_path
claim_requests complete dash_root fulfil is_within live_dashboards model_refusal new_token
owner_alive prompt_refusal prune_channel read_json_tolerant read_owner_pid refuse request_id
sanitize_file_drop show sweep_stale_token_dirs validate wait_for_ack write_ack write_request
""".split()


def test_every_former_public_name_is_still_exported() -> None:
    missing = [name for name in FORMER_SPAWN_NAMES if not hasattr(spawn, name)]
    assert missing == []
    assert set(FORMER_SPAWN_NAMES) <= set(spawn.__all__)


def test_the_repositorys_parent_is_a_root_unless_it_is_the_filesystem_root() -> None:
    nested = spawn.ValidationContext(repo=Path("/srv/work/repo"))
    assert nested.roots() == [Path("/srv/work/repo"), Path("/srv/work")]
    # A repository at /repo: its parent `/` would let a workdir be anywhere.
    top = spawn.ValidationContext(repo=Path("/repo"))
    assert top.roots() == [Path("/repo")]
    assert spawn.ValidationContext(repo=Path("/repo"), workdir_roots=["/srv"]).roots() == [
        Path("/repo"),
        Path("/srv"),
    ]
