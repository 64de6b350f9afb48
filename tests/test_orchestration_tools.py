"""Every orchestration tool's argument shape: wrong types, missing fields, huge
strings, unknown arguments, unknown handles, another repository's handle and
another session's; each a tool error the model reads, never an exception."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.test_spawn import make_repo
from zirv_dash import paths
from zirv_dash.delegation import records
from zirv_dash.delegation.service import DelegationService, Me
from zirv_dash.native import orchestration_tools as ot
from zirv_dash.native.approvals import Policy

H = "d-0123456789ab"
HUGE = "x" * (ot.MAX_PROMPT + 1)

BAD: list[tuple[str, object, str]] = [
    ("delegate", {"prompt": "p"}, "missing required argument harness"),
    ("delegate", {"harness": "demo"}, "missing required argument prompt"),
    ("delegate", {"harness": 3, "prompt": "p"}, "harness must be a string"),
    ("delegate", {"harness": "demo", "prompt": ["p"]}, "prompt must be a string"),
    ("delegate", {"harness": "demo", "prompt": HUGE}, "prompt is longer than"),
    ("delegate", {"harness": "demo", "prompt": "p", "worktree": "yes"}, "true or false"),
    ("delegate", {"harness": "demo", "prompt": "p", "mode": "rw"}, "must be one of"),
    ("delegate", {"harness": "demo", "prompt": "p", "force": True}, "unknown argument(s) force"),
    ("delegate", {"harness": "demo", "prompt": "  "}, "prompt must not be empty"),
    ("delegate", {"harness": "x" * 500, "prompt": "p"}, "harness is longer than"),
    ("delegate", ["demo", "p"], "must be a JSON object"),
    ("send", {"handle": H}, "missing required argument message"),
    ("send", {"handle": 7, "message": "m"}, "handle must be a string"),
    ("send", {"handle": "../x", "message": "m"}, "not a delegation handle"),
    ("send", {"handle": H, "message": "m" * (ot.MAX_MESSAGE + 1)}, "message is longer"),
    ("send", {"handle": H, "message": "a\0b"}, "NUL"),
    ("wait", {}, "missing required argument handles"),
    ("wait", {"handles": H}, "non-empty list"),
    ("wait", {"handles": []}, "non-empty list"),
    ("wait", {"handles": [1]}, "as strings"),
    ("wait", {"handles": [H] * 17}, "at most 16"),
    ("wait", {"handles": [H], "timeout_s": "5"}, "must be a number"),
    ("wait", {"handles": [H], "timeout_s": True}, "must be a number"),
    ("wait", {"handles": [H], "timeout_s": 10_000}, "between 0 and 600"),
    ("wait", {"handles": [H], "timeout_s": -1}, "between 0 and 600"),
    ("result", {}, "missing required argument handle"),
    ("result", {"handle": "d-XYZ"}, "not a delegation handle"),
    ("follow_up", {"handle": H}, "missing required argument message"),
    ("follow_up", {"handle": H, "message": False}, "message must be a string"),
    ("interrupt", {"handle": None}, "missing required argument handle"),
    ("interrupt", {"handle": H, "why": "x"}, "unknown argument(s) why"),
    ("close", {"handle": {"h": H}}, "handle must be a string"),
]


class NoFleet:
    """A fleet that must never be reached by a call that fails validation."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"{name} reached with bad arguments")


@pytest.mark.parametrize(("tool", "args", "said"), BAD)
async def test_bad_arguments_are_a_tool_error(tool: str, args: object, said: str) -> None:
    result = await ot.execute(NoFleet(), tool, args)  # type: ignore[arg-type]
    assert not result.ok and result.display == "error"
    assert said in result.output, result.output
    assert len(result.output) < 300  # a huge argument is never echoed back whole


async def test_no_fleet_means_no_orchestration() -> None:
    result = await ot.execute(None, "result", {"handle": H})
    assert not result.ok and "cannot delegate" in result.output


def test_the_approval_gate_covers_what_starts_or_stops_a_worker() -> None:
    policy = Policy()
    for name in ("delegate", "follow_up", "interrupt", "close"):
        assert policy.needs_approval(name, {"handle": H})
    for name in ("send", "wait", "result"):
        assert not policy.needs_approval(name, {"handle": H})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "work" / "repo")


def service(repo: Path, short: str = "aaaa1111") -> DelegationService:
    me = Me(short, f"{short}-0000", lambda: None)
    return DelegationService(repo, me, paths.repo_slug(repo), lambda s: None)


@pytest.mark.parametrize("tool", ["send", "result", "follow_up", "interrupt", "close", "wait"])
async def test_unknown_foreign_and_other_sessions_handles(
    repo: Path, tmp_path: Path, tool: str
) -> None:
    fleet = service(repo)
    other_repo = make_repo(tmp_path / "work" / "other")
    theirs = records.create(other_repo, harness="demo", owner="aaaa1111", workdir=str(other_repo))
    not_mine = records.create(repo, harness="demo", owner="bbbb2222", workdir=str(repo))

    def args(handle: str) -> dict[str, object]:
        if tool == "wait":
            return {"handles": [handle], "timeout_s": 0}
        if tool in ("send", "follow_up"):
            return {"handle": handle, "message": "more"}
        return {"handle": handle}

    unknown = await ot.execute(fleet, tool, args(H))
    assert not unknown.ok and f"unknown handle {H}" in unknown.output
    foreign = await ot.execute(fleet, tool, args(theirs.handle))
    assert not foreign.ok and f"unknown handle {theirs.handle}" in foreign.output
    other = await ot.execute(fleet, tool, args(not_mine.handle))
    assert not other.ok and "not delegated by this session" in other.output


async def test_a_refused_delegation_is_said_and_kept_as_a_failed_receipt(repo: Path) -> None:
    holder = records.create(repo, harness="codex", owner="cccc3333", workdir=str(repo))
    from zirv_dash.delegation import permits

    assert permits.acquire(repo, holder.handle, repo) is None
    fleet = service(repo)
    got = await ot.execute(fleet, "delegate", {"harness": "demo", "prompt": "p"})
    assert not got.ok and f"delegation {holder.handle}" in got.output
    failed = [r for r in records.list_all(repo) if r.owner == "aaaa1111"]
    assert [r.state for r in failed] == ["failed"]
    # Without a channel (a dashboard keeping no state) even a read-only one is refused.
    got = await ot.execute(fleet, "delegate", {"harness": "demo", "prompt": "p",
                                               "mode": "read-only"})  # fmt: skip
    assert not got.ok and "no spawn channel" in got.output


async def test_wait_times_out_bounded_and_result_is_a_bounded_manifest(repo: Path) -> None:
    fleet = service(repo)
    mine = records.create(repo, harness="demo", owner="aaaa1111", workdir=str(repo))
    records.update(repo, mine.handle, lambda r: records.add_attempt(r, "dddd4444", "s", "x"))
    waited = await ot.execute(fleet, "wait", {"handles": [mine.handle], "timeout_s": 0.3})
    assert waited.ok and waited.output.startswith("timed out after 0.3s")
    assert f"worker dddd4444 (demo, {mine.handle}) running" in waited.output
    from zirv_dash.delegation import outcomes

    outcomes.persist(repo, mine.handle, "settled", exit_code=None,
                     tail="\n".join(f"line {i}" for i in range(100)), result_path=None,
                     to=None)  # fmt: skip
    ready = await ot.execute(fleet, "wait", {"handles": [mine.handle], "timeout_s": 5})
    assert ready.ok and ready.output.startswith(
        f"ready: worker dddd4444 (demo, {mine.handle}) settled ({mine.handle}:1:settled)"
    )
    again = await ot.execute(fleet, "wait", {"handles": [mine.handle], "timeout_s": 0})
    assert again.output.startswith("timed out")  # the same outcome is not news twice
    result = await ot.execute(fleet, "result", {"handle": mine.handle})
    import json

    manifest = json.loads(result.output.splitlines()[-1])
    assert manifest["outcome"] == "settled" and manifest["last_lines_cut"] is True
    assert len(manifest["last_lines"]) == 40 and manifest["last_lines"][-1] == "line 99"


async def test_the_manifest_names_tool_calls_whose_outcome_is_unknown(repo: Path) -> None:
    import json

    from zirv_dash.delegation import outcomes

    fleet = service(repo)
    mine = records.create(repo, harness="native", owner="aaaa1111", workdir=str(repo))
    records.update(repo, mine.handle, lambda r: records.add_attempt(r, "eeee5555", "s", "x"))
    outcomes.persist(repo, mine.handle, "ended", exit_code=0, tail="bye", result_path=None,
                     to=None, unknown_tools=["write_file(path: a.txt)"])  # fmt: skip
    result = await ot.execute(fleet, "result", {"handle": mine.handle})
    manifest = json.loads(result.output.splitlines()[-1])
    assert manifest["unknown_tool_outcomes"] == ["write_file(path: a.txt)"]
    assert manifest["last_lines"] == ["bye"] and manifest["last_lines_cut"] is False


async def test_a_native_worker_pane_reports_its_unknown_tool_outcomes(tmp_path: Path) -> None:
    from zirv_dash.dash.pane_kinds import native_spec
    from zirv_dash.native.demo_provider import DemoProvider
    from zirv_dash.native.engine import NativeSession
    from zirv_dash.native.journal import Journal
    from zirv_dash.native.routes import demo_route
    from zirv_dash.runtime.native_pane import NativeSessionPane

    path = tmp_path / "w.sqlite"
    first = Journal(path)
    first.append("open", route="demo", model="demo")
    first.append("input", id="in-1", text="go", steering=False)
    first.append("assistant", id="m-1", text="Writing.")
    args = {"path": "a.txt", "content": "x"}
    first.append("tool_call", id="c-1", message_id="m-1", name="write_file", arguments=args)
    first.append("tool_start", id="c-1")
    first.close()  # stopped while the call ran
    workdir = tmp_path / "wd"
    workdir.mkdir()

    def opener(where: Path, name: str) -> NativeSession:
        return NativeSession(demo_route(), Journal(path), where, provider=DemoProvider(delay=0))

    sid = "ffff0000-0000-4000-8000-000000000000"
    spec = native_spec(str(workdir), role="worker", session_id=sid, prompt=None, headless=True,
                       requested_by=None)  # fmt: skip
    pane = NativeSessionPane(spec, 80, 24, opener)
    assert pane.start({})
    [unknown] = pane.unknown_tool_outcomes()
    assert unknown.startswith("write_file(") and "a.txt" in unknown
    assert "Writing." in "\n".join(pane.report_lines())
    assert pane.session is not None
    await pane.session.close()


async def test_wait_is_cancelled_at_once_like_any_tool(repo: Path) -> None:
    """Esc cancels the turn's task; a `wait` inside it ends then, not at its timeout."""
    import asyncio
    import time

    fleet = service(repo)
    mine = records.create(repo, harness="demo", owner="aaaa1111", workdir=str(repo))
    task = asyncio.ensure_future(
        ot.execute(fleet, "wait", {"handles": [mine.handle], "timeout_s": 600})
    )
    await asyncio.sleep(0.3)
    assert not task.done()
    started = time.monotonic()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert time.monotonic() - started < 1.0
