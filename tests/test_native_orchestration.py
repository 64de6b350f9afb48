"""A native orchestrator pane in the real dashboard, driven by a scripted model on
a loopback server (OpenAI-compatible SSE and Anthropic Messages): it delegates
to a `demo` worker (through the approval dialog), waits, reads the result
manifest and answers quoting the worker's report."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.apphelpers import dash_screen, make_app, native_app, ready_orchestrator, wait_for
from tests.fixtures.native.server import (
    ProviderServer,
    Reply,
    anthropic_stream,
    openai_text,
    openai_tool,
    serve,
)
from tests.test_native_pane_loopback import configure
from widgets.native_approval import NativeApproval
from widgets.native_composer import NativeComposer
from widgets.native_transcript import TranscriptView
from widgets.sidebar import Sidebar
from zirv_dash.delegation import records
from zirv_dash.runtime.native_pane import NativeSessionPane

server = pytest.fixture(serve)
HANDLE = re.compile(r"d-[0-9a-f]{12}")


class LazyReplies(list[Any]):
    """Replies built when their request arrives, from what the model was sent."""

    def pop(self, index: Any = -1) -> Any:
        item = super().pop(index)
        return item() if callable(item) else item


def sent(srv: ProviderServer) -> str:
    return json.dumps(srv.seen[-1].body)


def strings(node: Any) -> list[str]:
    """Every string in a request body (the tool results are among them)."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [text for value in node.values() for text in strings(value)]
    if isinstance(node, list):
        return [text for value in node for text in strings(value)]
    return []


def quoted_line(srv: ProviderServer) -> str:
    """The last line of the worker's report that says something (not its idle
    prompt), from the `result` manifest the model was last sent."""
    for text in reversed(strings(srv.seen[-1].body)):
        if '"last_lines"' in text:
            manifest = json.loads(text[text.index("{") :])
            said = [line.strip() for line in manifest["last_lines"] if re.search(r"\w", line)]
            assert said, manifest
            return said[-1]
    raise AssertionError(sent(srv)[-2000:])


def script(srv: ProviderServer, provider: str) -> list[str]:
    def call(name: str, args: Callable[[], dict[str, Any]]) -> Callable[[], Reply]:
        def build() -> Reply:
            made = args()
            if provider == "anthropic":
                return Reply(chunks=anthropic_stream("Next.", (f"toolu_{name}", name, made)))
            return Reply(chunks=openai_tool(f"call_{name}", name, made))

        return build

    def handle() -> str:
        found = HANDLE.search(sent(srv))
        assert found is not None
        return found.group(0)

    said: list[str] = []

    def final() -> Reply:
        text = f"The worker reported: {quoted_line(srv)}"
        said.append(text)
        if provider == "anthropic":
            return Reply(chunks=anthropic_stream(text))
        return Reply(chunks=openai_text(text))

    replies = LazyReplies()
    delegate = {"harness": "demo", "prompt": "say hi", "mode": "read-only"}
    replies.append(call("delegate", lambda: delegate))
    replies.append(call("wait", lambda: {"handles": [handle()], "timeout_s": 30}))
    replies.append(call("result", lambda: {"handle": handle()}))
    replies.append(final)
    # A spare reply: the report-back itself starts no turn after `wait`/`result`.
    noted = anthropic_stream("Noted.") if provider == "anthropic" else openai_text("Noted.")
    replies.append(Reply(chunks=noted))
    srv.replies = replies
    return said


def sidebar_text(screen: Any) -> str:
    bar = screen.query_one(Sidebar)
    return "\n".join(
        "".join(seg.text for seg in bar.render_line(y)) for y in range(bar.size.height)
    )


@pytest.mark.parametrize("provider", ["openai-compatible", "anthropic"])
async def test_delegate_wait_result_and_an_answer_quoting_the_report(
    server: ProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-loop")
    configure(server, provider, "anthropic" if provider == "anthropic" else "vllm")
    said = script(server, provider)
    repo = tmp_path / "repo"
    (repo / ".zirv").mkdir(parents=True)
    app = make_app(repo, agent="native", manage_state=True)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: bool(screen.native_views))
        orch = screen.dash.panes[0]
        assert isinstance(orch, NativeSessionPane) and orch.session is not None
        assert orch.session.fleet is not None
        view = screen.native_views[orch.short]
        await wait_for(pilot, lambda: isinstance(app.focused, NativeComposer))
        await pilot.press(*"get a hello from a worker", "enter")
        dialog = view.query_one(NativeApproval)
        await wait_for(pilot, lambda: dialog.ready, timeout=20)
        assert "delegate to demo (read-only)" in str(dialog.render())
        await pilot.press("1")
        transcript = view.query_one(TranscriptView)
        await wait_for(pilot, lambda: "The worker reported:" in transcript.plain(), timeout=40)
        # The worker pane opened beside it, marked as this session's worker.
        worker = screen.dash.panes[1]
        assert worker.agent == "demo" and worker.title.endswith(f"←{orch.short[:4]}")
        assert f"←{orch.short[:4]}" in sidebar_text(screen)
        # Every tool the model was offered, the manifest it was sent, its answer drawn.
        tools = json.dumps(server.seen[0].body.get("tools"))
        for name in ("delegate", "send", "wait", "result", "follow_up", "interrupt", "close"):
            assert f'"{name}"' in tools
        assert len(server.seen) >= 4
        assert "last_lines" in json.dumps(server.seen[3].body)
        assert "last_lines" not in json.dumps(server.seen[2].body)
        (record,) = records.list_all(repo)
        assert record.owner == orch.short and record.current is not None
        assert record.current.short == worker.short
        shown = transcript.plain()
        assert f"worker {worker.short} (demo, {record.handle})" in shown
        assert said and "Done." in said[0]  # the report itself, not the idle prompt
        assert said[0] in " ".join(shown.split())


async def test_close_then_follow_up_opens_a_new_attempt_on_the_same_handle(
    server: ProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-loop")
    configure(server, "openai-compatible", "vllm")

    def first_handle() -> str:
        found = HANDLE.search(json.dumps(server.seen[1].body))
        assert found is not None
        return found.group(0)

    def tool(name: str, args: Callable[[], dict[str, Any]]) -> Callable[[], Reply]:
        return lambda: Reply(chunks=openai_tool(f"call_{name}", name, args()))

    replies = LazyReplies()
    replies.append(tool("delegate", lambda: {"harness": "demo", "prompt": "say hi"}))
    replies.append(tool("close", lambda: {"handle": first_handle()}))
    replies.append(tool("follow_up", lambda: {"handle": first_handle(), "message": "again"}))
    replies.append(tool("wait", lambda: {"handles": [first_handle()], "timeout_s": 30}))
    replies.append(Reply(chunks=openai_text("Both attempts done.")))
    replies.append(Reply(chunks=openai_text("Noted.")))
    server.replies = replies
    repo, app = native_app(tmp_path)
    async with app.run_test(size=(140, 40)) as pilot:
        screen, orch, view = await ready_orchestrator(pilot, app)
        await pilot.press(*"work", "enter")
        dialog = view.query_one(NativeApproval)
        for expected in ("delegate to demo (write)", "close worker", "follow up"):
            await wait_for(pilot, lambda e=expected: dialog.ready and e in str(dialog.render()),
                           timeout=30)  # fmt: skip
            if expected == "close worker":
                (record,) = records.list_all(repo)
                assert record.permit == str(repo.resolve())  # the write delegation's permit
            await pilot.press("1")
        transcript = view.query_one(TranscriptView)
        await wait_for(pilot, lambda: "Both attempts done." in transcript.plain(), timeout=40)
        (record,) = records.list_all(repo)
        assert len(record.attempts) == 2 and record.owner == orch.short
        first, second = (screen.dash.pane_by_short(a.short) for a in record.attempts)
        assert first is not None and not first.alive  # closed through the kill ladder
        assert second is not None and second.alive
        assert "lacks" not in (second.first_prompt or "")
        assert "do not have the original worker's hidden context" in (second.first_prompt or "")
        assert f"worker {second.short} (demo, {record.handle}) running" in transcript.plain()


async def test_a_native_worker_on_its_own_route(
    server: ProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`harness: native` opens a native worker pane (the `worker` role's route, here a
    second loopback server); its answer is the report the orchestrator reads."""
    from zirv_dash import paths

    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-loop")
    with ProviderServer() as worker_server:
        worker_server.replies.append(Reply(chunks=openai_text("Hello from the native worker.")))
        config = paths.operator_dir() / "native.toml"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(
            f"""schema = 1
[endpoint.lead]
provider = "openai-compatible"
vendor = "vllm"
base_url = "{server.base_url}"
[endpoint.crew]
provider = "openai-compatible"
vendor = "vllm"
base_url = "{worker_server.base_url}"
[account.me]
provider = "openai-compatible"
credential = "env:ZIRV_LOOPBACK_KEY"
[route.main]
account = "me"
endpoint = "lead"
model = "lead-model"
[route.crew]
account = "me"
endpoint = "crew"
model = "crew-model"
[roles]
orchestrator = "main"
worker = "crew"
"""
        )
        said = script(server, "openai-compatible")
        replies = server.replies
        replies[0] = lambda: Reply(chunks=openai_tool("call_d", "delegate", {
            "harness": "native", "prompt": "say hello", "mode": "read-only"}))  # fmt: skip
        repo = tmp_path / "repo"
        (repo / ".zirv").mkdir(parents=True)
        app = make_app(repo, agent="native", manage_state=True)
        async with app.run_test(size=(140, 40)) as pilot:
            screen = dash_screen(app)
            await wait_for(pilot, lambda: bool(screen.native_views))
            orch = screen.dash.panes[0]
            view = screen.native_views[orch.short]
            await wait_for(pilot, lambda: isinstance(app.focused, NativeComposer))
            await pilot.press(*"ask a native worker", "enter")
            dialog = view.query_one(NativeApproval)
            await wait_for(pilot, lambda: dialog.ready, timeout=20)
            await pilot.press("1")
            transcript = view.query_one(TranscriptView)
            await wait_for(pilot, lambda: "The worker reported:" in transcript.plain(), timeout=40)
            worker = screen.dash.panes[1]
            assert isinstance(worker, NativeSessionPane) and worker.model == "vllm/crew-model"
            assert said == ["The worker reported: Hello from the native worker."]
            assert worker_server.seen[0].body["messages"][-1]["content"] == "say hello"
