"""End to end below the dashboard: native.toml → route → real loopback server →
the pane streams, asks, is answered with `1`, shows the result."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from tests.fixtures.native.server import (
    ProviderServer,
    Reply,
    anthropic_stream,
    openai_text,
    serve,
    sse,
)
from widgets.native_approval import NativeApproval
from widgets.native_composer import NativeComposer
from widgets.native_pane import NativePane
from widgets.native_transcript import TranscriptView
from zirv_dash import paths
from zirv_dash.native import NativeSession, open_session

server = pytest.fixture(serve)


class PaneApp(App[None], inherit_bindings=False):
    def __init__(self, session: NativeSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield NativePane(self.session)


def configure(srv: ProviderServer, provider: str, vendor: str) -> None:
    path = paths.operator_dir() / "native.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"""schema = 1
[endpoint.here]
provider = "{provider}"
vendor = "{vendor}"
base_url = "{srv.base_url}"
[account.me]
provider = "{provider}"
credential = "env:ZIRV_LOOPBACK_KEY"
[route.main]
account = "me"
endpoint = "here"
model = "test-model"
[roles]
orchestrator = "main"
"""
    )


def openai_write_call() -> list[bytes]:
    call = {
        "index": 0,
        "id": "call_w",
        "type": "function",
        "function": {"name": "write_file", "arguments": '{"path": "out.txt", "content": "hi\\n"}'},
    }
    return sse(
        {"choices": [{"index": 0, "delta": {"content": "Writing it."}}]},
        {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
        "[DONE]",
    )


async def until(pilot: object, check: Callable[[], bool], timeout: float = 15.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await pilot.pause(0.02)  # type: ignore[attr-defined]


def shown(app: App[None]) -> str:
    return app.query_one(TranscriptView).plain()


@pytest.mark.parametrize("provider", ["openai-compatible", "anthropic"])
async def test_streamed_answer_tool_call_approval_and_result(
    server: ProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str
) -> None:
    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-loop")
    if provider == "anthropic":
        configure(server, "anthropic", "anthropic")
        server.replies.append(
            Reply(
                chunks=anthropic_stream(
                    "Writing it.", ("toolu_w", "write_file", {"path": "out.txt", "content": "hi\n"})
                )
            )
        )
        server.replies.append(Reply(chunks=anthropic_stream("All written.")))
    else:
        configure(server, "openai-compatible", "vllm")
        server.replies.append(Reply(chunks=openai_write_call()))
        server.replies.append(Reply(chunks=openai_text("All ", "written.")))
    workdir = tmp_path / "wd"
    workdir.mkdir()
    app = PaneApp(open_session(workdir, f"loop-{provider}"))
    async with app.run_test(size=(120, 40)) as pilot:
        composer = app.query_one(NativeComposer)
        composer.load_text("write out.txt")
        await pilot.press("enter")
        dialog = app.query_one(NativeApproval)
        await until(pilot, lambda: dialog.ready)
        assert "Writing it." in shown(app) and "write_file out.txt" in str(dialog.render())
        await pilot.press("1")
        await until(pilot, lambda: "All written." in shown(app))
        assert (workdir / "out.txt").read_text() == "hi\n"
        assert "⎿ ✓ diff" in shown(app)
    assert len(server.seen) == 2
    assert "sk-loop" in str(server.seen[0].headers)


async def test_a_provider_error_is_shown_in_the_pane(
    server: ProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-loop")
    configure(server, "openai-compatible", "vllm")
    server.replies.append(
        Reply(
            status=401,
            content_type="application/json",
            chunks=[b'{"error": {"message": "invalid key"}}'],
        )
    )
    workdir = tmp_path / "wd"
    workdir.mkdir()
    app = PaneApp(open_session(workdir, "loop-err"))
    async with app.run_test(size=(80, 24)) as pilot:
        app.query_one(NativeComposer).load_text("hello")
        await pilot.press("enter")
        await until(pilot, lambda: "authentication failed" in shown(app))
        assert "invalid key" in shown(app) and "sk-loop" not in shown(app)
        assert app.session.state == "failed"
