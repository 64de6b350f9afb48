"""`zirv ctx api` and `zirv session` entry functions, against a runtime running in
its own process (real socket, real children)."""

from __future__ import annotations

import asyncio
import json
import os
import stat
import subprocess
import time
from pathlib import Path

import msgspec
import pytest

from tests.sessionrig import runtime, short_state
from zirv_dash.session import cli, client, methods, protocol, schema
from zirv_dash.session.client import Client

__all__ = ["runtime", "short_state"]


def test_schema_text_names_every_method_and_frame(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.api_main(["schema"]) == 0
    out = capsys.readouterr().out
    for method in protocol.Method:
        if method is not protocol.Method.UNKNOWN:
            assert f"  {method.value} [" in out
    for frame in ("hello", "request", "response", "event", "output"):
        assert f"  {frame} (" in out
    assert "ErrorCode: 'bad_frame'" in out and "'busy'" in out


def test_schema_json_is_generated_from_the_types(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.api_main(["schema", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["protocol"] == 1
    assert set(doc["methods"]) == {m.value for m in methods.METHODS}
    defs = doc["$defs"]
    for name in ("ErrorCode", "EventKind", "SeatMode", "SessionState"):
        assert defs[name]["enum"][-1] == "unknown", name
    # The published field lists are exactly what the encoder writes.
    facts = protocol.SessionFacts(id="s1", pid=1, started_at=1.0, exit_code=0)
    written = json.loads(msgspec.json.encode(facts))
    assert list(written) == list(defs["SessionFacts"]["properties"])
    for struct_type in (methods.ScreenResult, methods.AttachResult, methods.SnapshotResult):
        assert set(defs[struct_type.__name__]["properties"]) == set(struct_type.__struct_fields__)


def test_every_enum_decodes_an_unknown_value_as_unknown() -> None:
    for enum_type in (
        protocol.Method,
        protocol.ErrorCode,
        protocol.EventKind,
        protocol.SeatMode,
        protocol.SessionState,
    ):
        assert list(enum_type)[-1].value == "unknown"
        assert enum_type("from-a-newer-peer").value == "unknown"
    event = msgspec.json.decode(b'{"event": "brand_new", "revision": 3}', type=protocol.Event)
    assert event.event is protocol.EventKind.UNKNOWN


def test_call_without_a_runtime_says_how_to_start_one(
    short_state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.api_main(["call", "server.ping"]) == 1
    assert "zirv session serve" in capsys.readouterr().err
    assert cli.api_main(["call", "server.ping", "{not json"]) == 2
    assert "not JSON" in capsys.readouterr().err


def test_serve_list_call_stop_and_stop_runtime(
    runtime: subprocess.Popen[str], short_state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = short_state / "s" / cli.LOG_NAME
    assert stat.S_IMODE(os.stat(log).st_mode) == 0o600
    start = json.dumps({"argv": ["/bin/cat"], "name": "worker", "harness": "shell"})
    assert cli.api_main(["call", "session.start", start, "--idempotency-key", "w1"]) == 0
    started = json.loads(capsys.readouterr().out)["session"]
    assert started["state"] == "running"
    os.kill(started["pid"], 0)
    assert cli.session_main(["list"]) == 0
    listing = capsys.readouterr().out
    assert "worker" in listing and str(started["pid"]) in listing
    # Without a terminal to ask on, stop refuses unless told --yes.
    assert cli.session_main(["stop", "worker"]) == 2
    assert "--yes" in capsys.readouterr().err
    os.kill(started["pid"], 0)
    assert cli.session_main(["stop", "worker", "--yes"]) == 0
    assert "stopped" in capsys.readouterr().out
    with pytest.raises(ProcessLookupError):
        os.kill(started["pid"], 0)
    assert cli.session_main(["list", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["sessions"][0]["state"] == "stopped"
    assert cli.session_main(["stop", "--runtime"]) == 0
    assert runtime.wait(10) == 0
    assert not (short_state / "s" / "api.sock").exists()
    assert cli.api_main(["call", "server.ping"]) == 1


def test_session_detach_releases_the_clients(
    runtime: subprocess.Popen[str], capsys: pytest.CaptureFixture[str]
) -> None:
    async def attached() -> None:
        watcher = await Client.connect()
        try:
            await watcher.call("session.start", {"argv": ["/bin/cat"], "name": "kept"})
            await watcher.call("session.attach", {"session": "kept", "mode": "controller"})
            # The CLI runs in a thread: this loop keeps reading meanwhile.
            code = await asyncio.to_thread(cli.session_main, ["detach", "kept"])
            assert code == 0
            event = await watcher.next_event(protocol.EventKind.CONTROLLER_CHANGED)
            while event.data.controller is not None:
                event = await watcher.next_event(protocol.EventKind.CONTROLLER_CHANGED)
        finally:
            await watcher.close()

    asyncio.run(attached())
    assert "released 1 client(s); s1 keeps running" in capsys.readouterr().out
    facts = client.call("session.get", {"session": "kept"})["session"]
    assert facts["state"] == "running" and facts["controller"] is None


def test_ensure_runtime_starts_one_on_demand_and_reuses_it(short_state: Path) -> None:
    path = cli.ensure_runtime()
    try:
        pid, _uid = client.server_credentials(path)
        assert cli.ensure_runtime() == path
        assert client.server_credentials(path)[0] == pid  # the same runtime, not a second
    finally:
        assert cli.stop_runtime() == 0


def test_schema_module_is_what_the_cli_prints(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.api_main(["schema"]) == 0
    assert capsys.readouterr().out == schema.text()


def session_members(leader: int) -> list[int]:
    """Live processes whose session id is `leader` (from /proc)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat_line = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat_line.rsplit(")", 1)[1].split()
        if fields[0] != "Z" and int(fields[3]) == leader:
            members.append(int(entry.name))
    return members


def test_stop_yes_leaves_no_process_of_the_session(
    runtime: subprocess.Popen[str], capsys: pytest.CaptureFixture[str]
) -> None:
    script = "sleep 300 & sleep 301 & trap '' HUP TERM; wait"
    started = client.call("session.start", {"argv": ["/bin/sh", "-c", script], "name": "jobs"})
    leader = started["session"]["pid"]
    deadline = time.monotonic() + 20
    while len(session_members(leader)) < 3:
        assert time.monotonic() < deadline, session_members(leader)
        time.sleep(0.05)
    assert cli.session_main(["stop", "jobs", "--yes"]) == 0
    assert "stopped" in capsys.readouterr().out
    assert session_members(leader) == []
