"""Streaming Markdown in the native transcript: the text being streamed is a live
Textual Markdown document under the `⏺` bullet (headings, lists, code fences),
fed by appends; the settled transcript above is not redrawn per token; when the
block is journaled it joins the transcript and the live block empties.

A real loopback server speaks the OpenAI-compatible stream and holds the rest of
the answer at a gate, so the test looks at the pane mid-stream, then lets it end.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Markdown
from textual.widgets._markdown import (
    MarkdownBulletList,
    MarkdownFence,
    MarkdownH1,
    MarkdownHeader,
    MarkdownParagraph,
)

from tests.fixtures.native.server import ProviderServer, Reply, openai_text
from tests.test_native_pane_loopback import PaneApp, configure, until
from widgets.native_composer import NativeComposer
from widgets.native_stream import StreamBlock
from widgets.native_transcript import TranscriptView
from zirv_dash.native import open_session

HELD_AFTER = 4
"""Chunks sent before the gate: the heading, the list and the open code fence."""


class GatedServer(ProviderServer):
    """Sends the first HELD_AFTER chunks of a reply, then waits for `gate`."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = threading.Event()

    def answer(self, handler: BaseHTTPRequestHandler, reply: Reply) -> None:
        head, rest = reply.chunks[:HELD_AFTER], reply.chunks[HELD_AFTER:]
        handler.send_response(reply.status)
        handler.send_header("content-type", reply.content_type)
        handler.send_header("connection", "close")
        handler.send_header("content-length", str(sum(map(len, reply.chunks))))
        handler.end_headers()
        try:
            for chunk in head:
                handler.wfile.write(chunk)
                handler.wfile.flush()
            self.gate.wait(30)
            for chunk in rest:
                handler.wfile.write(chunk)
                handler.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass


@pytest.fixture
def server() -> Iterator[GatedServer]:
    srv = GatedServer()
    with srv:
        yield srv
        srv.gate.set()


def blocks(document: Markdown) -> list[type]:
    return [type(child) for child in document.children]


async def test_streamed_text_is_live_markdown_and_settles_into_the_transcript(
    tmp_path: Path, server: GatedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-loop")
    configure(server, "openai-compatible", "vllm")
    server.replies.append(
        Reply(
            chunks=openai_text(
                "# Plan\n\n",
                "- first item\n",
                "- second item\n\n",
                "```python\nprint('hi')\n",
                "```\n\nDone here.",
            )
        )
    )
    workdir = tmp_path / "wd"
    workdir.mkdir()
    session = open_session(workdir, "streamtest")
    app = PaneApp(session)
    async with app.run_test(size=(100, 40)) as pilot:
        transcript = app.query_one(TranscriptView)
        await until(pilot, lambda: isinstance(app.focused, NativeComposer))
        await pilot.press(*"plan it", "enter")
        await until(pilot, lambda: "> plan it" in transcript.plain())
        settled = transcript.settled.lines
        stream = transcript.stream
        # Mid-stream: the heading, the list and the open fence are Markdown blocks.
        await until(pilot, lambda: MarkdownFence in blocks(stream.document))
        kinds = blocks(stream.document)
        assert any(issubclass(k, MarkdownHeader) for k in kinds)
        assert MarkdownBulletList in kinds
        assert stream.display and session.streaming.startswith("# Plan")
        bullet = stream.query_one("#stream-bullet")
        assert bullet.region.x == transcript.settled.region.x
        assert stream.document.region.x == bullet.region.x + 2  # text hangs off the ⏺
        # The tokens never redrew the settled transcript above them.
        assert transcript.settled.lines is settled
        server.gate.set()
        await until(pilot, lambda: "Done here." in transcript.plain() and not session.busy)
        await until(pilot, lambda: not stream.display)
        text = transcript.plain()
        assert "⏺ Plan" in text and "• first item" in text and "print('hi')" in text
        assert transcript.settled.lines is not settled  # the answer is an item now
        assert session.streaming == ""


class BlockApp(App[None]):
    def compose(self) -> ComposeResult:
        yield StreamBlock()


async def test_each_fragment_keeps_the_blocks_before_it() -> None:
    """Fed one fragment at a time (each applied before the next), a heading that
    ended in a blank line is kept when a list follows; a new block starts afresh."""
    app = BlockApp()
    async with app.run_test() as pilot:
        block = app.query_one(StreamBlock)
        text = ""
        for fragment in ("# Plan\n\n", "- one\n", "- two\n\n", "```sh\nls\n"):
            text += fragment
            block.feed(text)
            await until(pilot, lambda: block.shown == block.target)
        kinds = blocks(block.document)
        assert kinds[0] is MarkdownH1 and kinds[1:] == [MarkdownBulletList, MarkdownFence]
        assert block.display
        block.feed("")
        assert not block.display  # hidden at once: the text is a settled item now
        block.feed("Next answer")
        await until(pilot, lambda: block.shown == "Next answer")
        assert blocks(block.document) == [MarkdownParagraph]
