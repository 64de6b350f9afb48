"""Frozen protocol v1 fixtures, replayed on every run.

Each `tests/fixtures/protocol/v1/*.ndjson` conversation is a list of steps:
`{"client": "a", "connect": true}`, `{"client": "a", "send": <request>}`,
`{"client": "a", "send_raw": "<a line that is not a request>"}` and
`{"client": "a", "recv": <frame>}`. The replay runs a fresh server over real
PTY children, sends what was sent and expects, frame by frame, what was
received (terminal `output` frames are a timing-chunked stream and skipped),
modulo volatile fields (pids, times, client ids, output sequence numbers,
error wording). Every recorded frame also decodes to its type and re-encodes
to the same JSON, so the frame field lists cannot change by accident.

Re-record after a deliberate wire change:
`ZIRV_PROTOCOL_RECORD=1 .venv/bin/pytest tests/test_session_fixtures.py`.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import msgspec
import pytest

from tests.sessionrig import serving, short_state
from zirv_dash.session.methods import METHODS
from zirv_dash.session.protocol import Event, HelloFrame, Method, Output, Request, Response
from zirv_dash.session.server import Server

__all__ = ["short_state"]

FIXTURES = Path(__file__).parent / "fixtures" / "protocol" / "v1"
RECORD = os.environ.get("ZIRV_PROTOCOL_RECORD") == "1"
VOLATILE = frozenset({"pid", "started_at", "seq", "version", "repo"})
CLIENT_FIELDS = frozenset({"client_id", "controller", "previous"})
SCRIPT = ["/bin/sh", "-c", 'read line; echo "got $line"; read more']
"""A real child whose screen is deterministic once "got …" shows."""


def normalise(value: Any, clients: dict[str, str], key: str = "") -> Any:
    if isinstance(value, dict):
        out = {k: normalise(v, clients, k) for k, v in value.items()}
        if key == "error" and "message" in out:
            out["message"] = "<message>"
        return out
    if isinstance(value, list):
        return [normalise(v, clients) for v in value]
    if key in VOLATILE and value is not None:
        return f"<{key}>"
    if key in CLIENT_FIELDS and isinstance(value, str):
        return clients.get(value, "<stranger>")
    return value


class Peer:
    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def frame(self, timeout: float = 20.0) -> dict[str, Any] | None:
        """The next non-output frame; None on timeout when `timeout` is short."""
        while True:
            try:
                line = await asyncio.wait_for(self.reader.readline(), timeout)
            except TimeoutError:
                return None
            assert line.endswith(b"\n"), "the server closed the connection"
            frame: dict[str, Any] = json.loads(line)
            if "output" not in frame:
                return frame


async def open_peer(server: Server) -> Peer:
    assert server.path is not None
    reader, writer = await asyncio.open_unix_connection(os.fspath(server.path))
    return Peer(reader, writer)


def send_line(step: dict[str, Any]) -> bytes:
    if "send_raw" in step:
        return str(step["send_raw"]).encode() + b"\n"
    return json.dumps(step["send"], separators=(",", ":")).encode() + b"\n"


# -- replay -----------------------------------------------------------------------------


def load(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


async def replay(server: Server, name: str, steps: list[dict[str, Any]]) -> None:
    peers: dict[str, Peer] = {}
    live_ids: dict[str, str] = {}
    recorded_ids: dict[str, str] = {}
    for number, step in enumerate(steps, 1):
        label = step["client"]
        where = f"{name} step {number}"
        if step.get("connect"):
            peers[label] = await open_peer(server)
        elif "recv" in step:
            got = await peers[label].frame()
            assert got is not None, f"{where}: nothing received"
            expected = step["recv"]
            if "hello" in expected:
                recorded_ids[expected["hello"]["client_id"]] = f"<client:{label}>"
                live_ids[got["hello"]["client_id"]] = f"<client:{label}>"
            want, have = normalise(expected, recorded_ids), normalise(got, live_ids)
            assert have == want, f"{where}: expected {want}, got {have}"
        else:
            peers[label].writer.write(send_line(step))
    for peer in peers.values():
        peer.writer.close()


@pytest.mark.parametrize("path", sorted(FIXTURES.glob("conversation-*.ndjson")), ids=str)
async def test_the_server_answers_recorded_requests_as_recorded(
    path: Path, short_state: Path
) -> None:
    if RECORD:
        pytest.skip("recording")
    async with serving() as server:
        await replay(server, path.name, load(path))


# -- decode and re-encode ---------------------------------------------------------------------


def frames_of(steps: list[dict[str, Any]]) -> list[tuple[Any, type[msgspec.Struct]]]:
    """Every recorded frame with its type; a result also with its method's result type."""
    typed: list[tuple[Any, type[msgspec.Struct]]] = []
    methods: dict[tuple[str, Any], str] = {}
    for step in steps:
        if "send" in step:
            typed.append((step["send"], Request))
            methods[(step["client"], step["send"]["id"])] = step["send"]["method"]
        elif "recv" in step:
            frame = step["recv"]
            if "hello" in frame:
                typed.append((frame, HelloFrame))
            elif "event" in frame:
                typed.append((frame, Event))
            else:
                typed.append((frame, Response))
                spec = METHODS.get(Method(methods.get((step["client"], frame["id"]), "")))
                if frame["ok"] and spec is not None:
                    typed.append((frame["result"], spec.result))
    return typed


def all_fixture_steps() -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = []
    for path in sorted(FIXTURES.glob("conversation-*.ndjson")):
        steps += load(path)
    return steps


def test_every_recorded_frame_decodes_and_reencodes_identically() -> None:
    typed = frames_of(all_fixture_steps())
    assert len(typed) > 50
    kinds = {t for _, t in typed}
    assert {Request, Response, Event, HelloFrame} <= kinds
    for value, frame_type in typed:
        decoded = msgspec.convert(value, frame_type, strict=True)
        again = json.loads(msgspec.json.encode(decoded))
        assert again == value, f"{frame_type.__name__}: {value}"


def test_recorded_events_cover_the_vocabulary_and_revisions_are_contiguous() -> None:
    for path in sorted(FIXTURES.glob("conversation-*.ndjson")):
        by_client: dict[str, list[int]] = {}
        seen: set[str] = set()
        for step in load(path):
            frame = step.get("recv", {})
            if "event" in frame:
                by_client.setdefault(step["client"], []).append(frame["revision"])
                seen.add(frame["event"])
        for label, revisions in by_client.items():
            assert revisions == list(range(revisions[0], revisions[0] + len(revisions))), (
                path.name,
                label,
            )
    everything = {s["recv"]["event"] for s in all_fixture_steps() if "event" in s.get("recv", {})}
    assert {
        "session_started",
        "session_changed",
        "session_exited",
        "controller_changed",
        "client_attached",
        "client_detached",
    } <= everything


def test_tolerance_fixture_unknown_fields_and_values() -> None:
    for case in load(FIXTURES / "tolerance.ndjson"):
        types: dict[str, type[msgspec.Struct]] = {
            "Event": Event,
            "Response": Response,
            "Request": Request,
            "Output": Output,
            "HelloFrame": HelloFrame,
        }
        frame_type = types[case["type"]]
        decoded = msgspec.json.decode(json.dumps(case["wire"]).encode(), type=frame_type)
        assert json.loads(msgspec.json.encode(decoded)) == case["decoded"], case["wire"]


# -- recording -------------------------------------------------------------------------------


def _req(rid: int | str, method: str, params: dict[str, Any] | None = None, **extra: Any) -> Any:
    request: dict[str, Any] = {"id": rid, "method": method}
    if params is not None:
        request["params"] = params
    request.update(extra)
    return request


SCENARIOS: dict[str, list[tuple[str, Any]]] = {
    "conversation-basics.ndjson": [
        ("a", "connect"),
        ("a", _req(1, "server.ping")),
        ("a", _req(2, "server.capabilities")),
        ("a", _req(3, "events.subscribe")),
        ("a", _req(4, "session.snapshot")),
        ("a", _req(5, "session.start", {"argv": SCRIPT, "name": "echo", "harness": "shell"})),
        ("a", _req(6, "session.get", {"session": "echo"})),
        ("a", _req(7, "session.send_input", {"session": "s1", "text": "abc\r"})),
        ("a", _req(8, "session.wait", {"session": "s1", "text": "got abc"})),
        ("a", _req(9, "session.read", {"session": "s1"})),
        ("a", _req(10, "session.screen", {"session": "s1"})),
        ("a", _req(11, "session.list")),
        ("a", _req(12, "session.send_input", {"session": "s1", "data": "DQ=="})),
        ("a", _req(13, "session.wait", {"session": "s1"})),
        ("a", _req(14, "session.get", {"session": "s1"})),
        ("a", _req("x-15", "session.fly")),
        ("a", _req(16, "session.get", {"session": 7})),
        ("a", _req(17, "session.get", {"session": "nobody"})),
        ("a", "raw:this is not json"),
        ("a", _req(18, "events.subscribe", {"since": 1})),
        ("a", _req(19, "server.ping")),
    ],
    "conversation-seats.ndjson": [
        ("a", "connect"),
        ("b", "connect"),
        ("a", _req(1, "session.start", {"argv": ["/bin/cat"], "name": "cat"})),
        ("a", _req(2, "session.attach", {"session": "s1", "mode": "controller"})),
        ("b", _req(1, "session.attach", {"session": "s1", "mode": "controller"})),
        ("b", _req(2, "session.attach", {"session": "s1"})),
        ("b", _req(3, "session.send_input", {"session": "s1", "text": "x"})),
        ("b", _req(4, "session.takeover", {"session": "s1"})),
        ("a", _req(3, "session.send_input", {"session": "s1", "text": "x"})),
        ("b", _req(5, "session.resize", {"session": "s1", "columns": 100, "rows": 30})),
        ("a", _req(4, "session.detach", {"session": "s1"})),
        ("a", _req(5, "session.detach", {"session": "s1"})),
        ("b", _req(6, "session.stop", {"session": "s1", "grace": 1.0})),
        ("a", _req(6, "session.get", {"session": "s1"})),
        ("b", _req(7, "session.detach", {"session": "s1"})),
    ],
    "conversation-idempotency.ndjson": [
        ("a", "connect"),
        ("a", _req(1, "events.subscribe")),
        ("a", _req(2, "session.start", {"argv": ["/bin/cat"]}, idempotency_key="k1")),
        ("a", _req(3, "session.start", {"argv": ["/bin/cat"]}, idempotency_key="k1")),
        ("a", _req(4, "session.list")),
        ("a", _req(5, "session.stop", {"session": "s1"}, idempotency_key="k2")),
        ("a", _req(6, "session.stop", {"session": "s1"}, idempotency_key="k2")),
    ],
}


async def record(server: Server, script: list[tuple[str, Any]]) -> list[dict[str, Any]]:
    peers: dict[str, Peer] = {}
    steps: list[dict[str, Any]] = []

    async def collect(label: str, until_id: Any = None, quiet: float = 0.3) -> None:
        while True:
            frame = await peers[label].frame(20.0 if until_id is not None else quiet)
            if frame is None:
                return
            steps.append({"client": label, "recv": frame})
            if until_id is not None and "ok" in frame and frame.get("id") == until_id:
                return

    for label, action in script:
        if action == "connect":
            peers[label] = await open_peer(server)
            steps.append({"client": label, "connect": True})
            await collect(label, quiet=1.0)
            continue
        if isinstance(action, str) and action.startswith("raw:"):
            step: dict[str, Any] = {"client": label, "send_raw": action[4:]}
            until = None
        else:
            step, until = {"client": label, "send": action}, action["id"]
        steps.append(step)
        peers[label].writer.write(send_line(step))
        await collect(label, until)
        for other in peers:
            if other != label:
                await collect(other)
    return steps


@pytest.mark.skipif(not RECORD, reason="set ZIRV_PROTOCOL_RECORD=1 to re-record")
@pytest.mark.parametrize("name", sorted(SCENARIOS))
async def test_rerecord_fixture(name: str, short_state: Path) -> None:
    async with serving() as server:
        steps = await record(server, SCENARIOS[name])
    FIXTURES.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(step, separators=(",", ":")) + "\n" for step in steps)
    (FIXTURES / name).write_text(text)
