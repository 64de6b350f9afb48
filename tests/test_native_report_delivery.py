"""A worker's report-back to the NATIVE session that delegated it is the bounded
outcome, consumed once by its delivery identity: no `zirv ctx inbox` advisory,
and no extra model turn when `wait`/`result` already gave the model that
outcome (the loopback server's request log shows every turn)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.apphelpers import native_app, ready_orchestrator, wait_for
from tests.fixtures.native.server import ProviderServer, Reply, openai_text, openai_tool, serve
from tests.test_native_orchestration import HANDLE, LazyReplies, sent
from tests.test_native_pane_loopback import configure
from widgets.native_transcript import TranscriptView
from zirv_dash.delegation import records
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes.pane import Pane

server = pytest.fixture(serve)
pytestmark = pytest.mark.timeout(60)
DELEGATE = {"harness": "demo", "prompt": "say hi", "mode": "read-only"}


def handle_of(srv: ProviderServer) -> str:
    found = HANDLE.search(sent(srv))
    assert found is not None
    return found.group(0)


def report_handled(repo: Path, slug: str, orch: Pane) -> bool:
    """The report was mailed and nothing of it is left unread for the orchestrator."""
    found = records.list_all(repo)
    if not found or not any(d.published_at is not None for d in found[0].deliveries):
        return False
    return not mail.list_messages(slug, agent=orch.agent, short=orch.short)


def user_text(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    return json.dumps([m for m in messages if m.get("role") == "user"])


async def test_no_extra_turn_when_wait_already_gave_the_outcome(
    server: ProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-loop")
    configure(server, "openai-compatible", "vllm")
    replies = LazyReplies()
    replies.append(Reply(chunks=openai_tool("call_d", "delegate", DELEGATE)))
    replies.append(lambda: Reply(chunks=openai_tool("call_w", "wait", {
        "handles": [handle_of(server)], "timeout_s": 30})))  # fmt: skip
    replies.append(lambda: Reply(chunks=openai_tool("call_r", "result", {
        "handle": handle_of(server)})))  # fmt: skip
    replies.append(Reply(chunks=openai_text("All done.")))
    # No reply for a fifth request: a spurious turn would show in `seen`.
    server.replies = replies
    repo, app = native_app(tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen, orch, view = await ready_orchestrator(pilot, app)
        await pilot.press(*"get a hello from a worker", "enter")
        await wait_for(pilot, lambda: view.query_one(_approval()).ready, timeout=20)
        await pilot.press("1")
        transcript = view.query_one(TranscriptView)
        await wait_for(pilot, lambda: "All done." in transcript.plain(), timeout=40)
        await wait_for(pilot, lambda: report_handled(repo, screen.dash.slug, orch), timeout=20)
        await wait_for(pilot, lambda: orch.at_input_prompt())
        await pilot.pause(0.3)  # a turn the report started would have sent its request
        assert len(server.seen) == 4, [user_text(s.body)[-300:] for s in server.seen[4:]]
        assert "zirv ctx inbox" not in transcript.plain()
        (record,) = records.list_all(repo)
        assert record.deliveries and all(d.consumed_at is not None for d in record.deliveries)


async def test_a_report_to_an_idle_orchestrator_is_the_outcome_itself(
    server: ProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-loop")
    configure(server, "openai-compatible", "vllm")
    replies = LazyReplies()
    replies.append(Reply(chunks=openai_tool("call_d", "delegate", DELEGATE)))
    replies.append(Reply(chunks=openai_text("Delegated; I will hear back.")))
    replies.append(Reply(chunks=openai_text("Got the report.")))
    server.replies = replies
    repo, app = native_app(tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen, orch, view = await ready_orchestrator(pilot, app)
        await pilot.press(*"delegate and stop", "enter")
        await wait_for(pilot, lambda: view.query_one(_approval()).ready, timeout=20)
        await pilot.press("1")
        transcript = view.query_one(TranscriptView)
        await wait_for(pilot, lambda: "Got the report." in transcript.plain(), timeout=40)
        await wait_for(pilot, lambda: report_handled(repo, screen.dash.slug, orch), timeout=20)
        (record,) = records.list_all(repo)
        (delivery,) = record.deliveries
        assert delivery.consumed_at is not None  # consumed by its identity, once
        worker = record.current
        assert worker is not None
        asked = user_text(server.seen[2].body)
        assert f"report of worker {worker.short}" in asked
        assert f"delegation {record.handle} (demo, worker {worker.short}) settled" in asked
        assert f"delivery {delivery.identity}" in asked
        assert f'call result {{\\"handle\\": \\"{record.handle}\\"}}' in asked
        assert "zirv ctx inbox" not in asked
        await wait_for(pilot, lambda: orch.at_input_prompt())
        screen.engine.mail.sweep()
        await pilot.pause(0.3)
        assert len(server.seen) == 3  # typed once: no second turn for the same report


def _approval() -> type:
    from widgets.native_approval import NativeApproval

    return NativeApproval
