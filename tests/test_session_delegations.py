"""Protocol v1 `delegation.list` / `delegation.get` over the runtime's engine, and
the runtime's native sessions holding the orchestration tools."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sessionrig import connected, engine_serving, short_state
from zirv_dash.delegation import outcomes, records
from zirv_dash.runtime.native_pane import NativeSessionPane
from zirv_dash.session.client import RemoteError
from zirv_dash.session.protocol import ErrorCode

__all__ = ["short_state"]

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def repo(short_state: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    where = short_state / "repo"
    where.mkdir()
    monkeypatch.setenv("ZIRV_HOME", str(short_state / "operator"))
    monkeypatch.setenv("ZIRV_CTX_AGENT", "shell")
    return where


async def test_delegation_list_and_get(repo: Path) -> None:
    async with engine_serving(repo) as (server, host), connected(server) as client:
        where = host.repo
        mine = records.create(where, harness="demo", owner="operator", workdir=str(where))
        records.update(where, mine.handle, lambda r: records.add_attempt(r, "aaaa1111", "s", "x"))
        outcomes.persist(where, mine.handle, "ended", exit_code=0, tail="all good",
                         result_path=None, to="operator")  # fmt: skip
        (records.repo_dir(where) / "d-00000000000f.json").write_text("{torn")
        listed = await client.call("delegation.list", {})
        assert [d["handle"] for d in listed["delegations"]] == [mine.handle]
        assert listed["delegations"][0]["outcome"] == "ended"
        assert listed["problems"] and "torn" in listed["problems"][0]
        got = await client.call("delegation.get", {"handle": mine.handle})
        assert got["delegation"]["state"] == "ended" and got["last_lines"] == ["all good"]
        assert got["deliveries"] == [f"{mine.handle}:1:ended"]
        for bad in ("d-0123456789ab", "../../etc/passwd"):
            with pytest.raises(RemoteError) as refused:
                await client.call("delegation.get", {"handle": bad})
            assert refused.value.code is ErrorCode.NOT_FOUND
        with pytest.raises(RemoteError) as typed:
            await client.call("delegation.get", {"handle": 5})
        assert typed.value.code is ErrorCode.BAD_PARAMS


async def test_a_runtime_native_session_holds_the_orchestration_tools(repo: Path) -> None:
    async with engine_serving(repo) as (server, host), connected(server) as client:
        await client.call("session.start", {"harness": "shell"})
        await client.call("session.start", {"harness": "native", "name": "lead"})
        panes = [p for p in host.engine.dash.panes if isinstance(p, NativeSessionPane)]
        assert panes and panes[0].session is not None
        names = {s.name for s in panes[0].session.tool_specs()}
        assert {"delegate", "wait", "result", "close"} <= names
