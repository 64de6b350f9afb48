"""`zirv chat --runtime native` in a real terminal (tmux): the ordinary dashboard
with a native first pane, over a real loopback OpenAI-compatible server routed
through the private ~/.zirv/native.toml (and one speaking
Anthropic's Messages API). Prompt, streamed answer, a tool call,
the approval dialog answered with `1`, the result; Ctrl+Q leaves no process."""

from __future__ import annotations

import json
import os
import signal
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
    sse,
)
from tests.test_native_pane_loopback import configure, openai_write_call
from tests.tmuxharness import ZIRV, Tmux
from widgets.native_approval import ANSWER_MARGIN

pytestmark = pytest.mark.tmux
server = pytest.fixture(serve)
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def dash(tmux: Tmux) -> Iterator[Tmux]:
    tmux.env["PYTHONPATH"] = str(REPO)
    tmux.env["ZIRV_LOOPBACK_KEY"] = "sk-tmux"
    yield tmux


def no_process_left(tmux: Tmux, timeout: float = 10.0) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := tmux.marked_pids()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return left


def wait_gone(tmux: Tmux, needle: str, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while needle in (screen := tmux.capture()):
        assert time.monotonic() < deadline, f"{needle!r} stayed; screen was:\n{screen}"
        time.sleep(0.1)


@pytest.mark.parametrize("provider", ["openai-compatible", "anthropic"])
def test_chat_runtime_native_prompt_stream_tool_approval_result(
    dash: Tmux, server: ProviderServer, project: Path, provider: str
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
    dash.start([*ZIRV, "chat", "--runtime", "native"], 120, 40)
    screen = dash.wait_for("enter sends", timeout=30)
    assert "orch" in screen and "native" in screen  # the sidebar row and the harness
    dash.text("please write out.txt")
    dash.keys("Enter")
    screen = dash.wait_for("Do you want to proceed?", timeout=30)
    assert "Writing it." in screen and "write_file out.txt" in screen
    assert "▲ blocked" in screen and "test-model" in screen
    screen = dash.wait_for("1 needs you")  # the header counts the pane's state
    assert "▲ orch" in screen  # and the sidebar row shows it
    # The dialog is on the glass: it takes keys read once its margin has passed.
    time.sleep(ANSWER_MARGIN)
    dash.keys("1")
    dash.wait_for("All written.", timeout=30)
    # The answer streams in before the turn ends: the status line says so after.
    screen = dash.wait_for("✓ completed", timeout=30)
    assert "⎿ ✓ diff (ctrl+r to expand)" in screen and "All written." in screen
    assert (project / "out.txt").read_text() == "hi\n"
    # Chords still reach the dashboard: the error log opens and closes.
    dash.keys("C-a", "e")
    dash.wait_for("no recent errors")
    dash.keys("Escape")
    wait_gone(dash, "no recent errors")
    dash.keys("C-q")  # ends the native pane; it was the only one: the dashboard stays on it
    dash.wait_for("every pane has ended", timeout=30)
    dash.keys("C-a", "q")
    dash.wait_for("EXITED 0", timeout=30)
    assert no_process_left(dash) == []


def test_agent_runtime_native_opens_a_worker_pane_in_the_live_dashboard(
    tmux: Tmux, project: Path, tmp_path: Path
) -> None:
    tmux.env["PYTHONPATH"] = str(REPO)
    tmux.start([*ZIRV, "chat", "--runtime", "native"], 120, 40)  # no native.toml: demo
    tmux.wait_for("enter sends", timeout=30)
    tmux.start([*ZIRV, "agent", "--runtime", "native", "say hi", "--json"], 500, 12, name="cli")
    out = tmux.wait_for("EXITED 0", name="cli", timeout=30)
    receipt = json.loads(next(x for x in out.splitlines() if x.startswith("{")))
    assert receipt["mode"] == "dashboard_pane" and receipt["state"] == "launched"
    assert receipt["harness"] == "native"
    short = receipt["session"]
    tmux.wait_for(f"2 ▲ {short}", timeout=30)  # its row, in the roster like any worker
    # A delegated pane is headless: it waits for you, with the same three choices.
    tmux.wait_for("1 needs you", timeout=30)
    tmux.keys("C-a", "2")
    tmux.wait_for("native worker (delegated)", timeout=30)
    screen = tmux.wait_for("3. No, and tell the agent", timeout=30)
    assert "1. Yes" in screen and "2. Yes, and don't ask again" in screen
    tmux.quit("EXITED 0", timeout=30)
    assert no_process_left(tmux) == []
    # The restore roster records the pane kind (its harness name).
    rosters = list((tmp_path / "state").rglob("roster-*.json"))
    entries = [e for r in rosters for e in json.loads(r.read_text())["panes"]]
    assert any(e["agent"] == "native" and e["short"] == short and e["native"] for e in entries)


def test_a_dashboard_killed_mid_call_offers_its_conversation_and_never_reruns_it(
    dash: Tmux, server: ProviderServer, project: Path
) -> None:
    configure(server, "openai-compatible", "vllm")
    command = "echo started >> log.txt; sleep 4; echo finished >> log.txt"
    call = {
        "index": 0,
        "id": "call_r",
        "type": "function",
        "function": {"name": "run_command", "arguments": json.dumps({"command": command})},
    }
    server.replies.append(
        Reply(
            chunks=sse(
                {"choices": [{"index": 0, "delta": {"content": "Running it."}}]},
                {"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]},
                {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
                "[DONE]",
            )
        )
    )
    dash.start([*ZIRV, "native"], 120, 40)
    dash.wait_for("enter sends", timeout=30)
    dash.text("run the slow thing")
    dash.keys("Enter")
    dash.wait_for("Do you want to proceed?", timeout=30)
    time.sleep(ANSWER_MARGIN)
    dash.keys("1")
    log = project / "log.txt"
    deadline = time.monotonic() + 30
    while "started" not in (log.read_text() if log.exists() else ""):
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.05)
    dashboards = [
        pid for pid in dash.marked_pids() if b"native" in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]
    assert len(dashboards) == 1
    os.kill(dashboards[0], signal.SIGKILL)  # mid tool call: no roster, no `ended`
    dash.wait_for("EXITED 137", timeout=30)
    # The next `zirv native` offers the unfinished conversation.
    dash.start([*ZIRV, "native"], 120, 40, name="again")
    screen = dash.wait_for("restore · 1", timeout=30, name="again")
    assert "[x] orchestrator · native" in screen
    dash.keys("Enter", name="again")
    screen = dash.wait_for("outcome unknown", timeout=30, name="again")
    assert "run the slow thing" in screen and "not re-run" in screen
    # Whatever became of the killed command, it ran once: nothing started it again.
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline:
        assert log.read_text().count("started") == 1
        time.sleep(0.2)
    dash.quit(timeout=30, name="again")
    assert no_process_left(dash) == []
