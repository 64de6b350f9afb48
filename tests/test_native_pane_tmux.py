"""The native pane in a real terminal (tmux) against a real loopback provider:
streamed answer, a tool call, the approval dialog answered with `1`, the result."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.native.server import (
    ProviderServer,
    Reply,
    anthropic_stream,
    openai_text,
    serve,
)
from tests.test_native_pane_loopback import configure, openai_write_call
from tests.tmuxharness import Tmux
from widgets.native_approval import ANSWER_MARGIN

pytestmark = pytest.mark.tmux
server = pytest.fixture(serve)
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def pane(tmux: Tmux) -> Iterator[Tmux]:
    tmux.env["PYTHONPATH"] = str(REPO)
    tmux.env["ZIRV_LOOPBACK_KEY"] = "sk-tmux"
    yield tmux


def run(tmux: Tmux, project: Path) -> None:
    command = [sys.executable, "-m", "tests.fixtures.native.pane_app", str(project), "e2e"]
    tmux.start(command, 120, 40)


@pytest.mark.parametrize("provider", ["openai-compatible", "anthropic"])
def test_prompt_stream_tool_approval_result(
    pane: Tmux, server: ProviderServer, project: Path, provider: str
) -> None:
    if provider == "anthropic":
        configure(server, "anthropic", "anthropic")
        args = {"path": "out.txt", "content": "hi\n"}
        server.replies.append(
            Reply(chunks=anthropic_stream("Writing it.", ("toolu_w", "write_file", args)))
        )
        server.replies.append(Reply(chunks=anthropic_stream("All written.")))
    else:
        configure(server, "openai-compatible", "vllm")
        server.replies.append(Reply(chunks=openai_write_call()))
        server.replies.append(Reply(chunks=openai_text("All ", "written.")))
    run(pane, project)
    pane.wait_for("enter sends", timeout=30)
    pane.text("please write out.txt")
    pane.keys("Enter")
    screen = pane.wait_for("Do you want to proceed?")
    assert "Writing it." in screen and "write_file out.txt" in screen
    assert "▲ blocked" in screen and "test-model" in screen
    # The dialog is on the glass: it takes keys read once its margin has passed.
    time.sleep(ANSWER_MARGIN)
    pane.keys("1")
    screen = pane.wait_for("All written.")
    assert "⎿ ✓ diff (ctrl+r to expand)" in screen and "✓ completed" in screen
    assert (project / "out.txt").read_text() == "hi\n"
    pane.keys("C-q")
    pane.wait_for("EXITED 0")
