"""Nothing a model, a tool or an error body sends reaches the operator's terminal raw.

A loopback model server streams an answer full of escape sequences (OSC 2 title,
OSC 52 clipboard, OSC 8 link, CSI ?1049h, an 8-bit C1 CSI), calls tools whose
output and file names carry them, fails with an error body holding them and asks
to run a command spelled with them. At every step the bytes Textual would write
to the terminal (the full screen, as the compositor renders it), the grid tile's
lines and the web view's text hold only visible placeholders.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from tests.fixtures.native.server import ProviderServer, Reply, openai_text, serve, sse
from widgets.native_approval import NativeApproval
from widgets.native_composer import NativeComposer
from widgets.native_pane import NativePane
from zirv_dash import paths
from zirv_dash.harnesses.native_kind import NATIVE_ADAPTER
from zirv_dash.native import NativeSession, open_session
from zirv_dash.native.tail import tile_lines, tile_status
from zirv_dash.panes.spec import PaneSpec
from zirv_dash.runtime.native_pane import NativeSessionPane
from zirv_dash.session import native_host
from zirv_dash.visible import has_control, visible

server = pytest.fixture(serve)

OSC_TITLE = "\x1b]2;pwned-title\x07"
OSC_CLIPBOARD = "\x1b]52;c;aGVsbG8=\x07"
OSC_LINK = "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"
ALT_SCREEN = "\x1b[?1049h"
C1_CSI = "\x9b31m"
HOSTILE = f"{OSC_TITLE} {OSC_CLIPBOARD} {OSC_LINK} {ALT_SCREEN} {C1_CSI} tail"
EVIL_NAME = "\x1b]2;named\x07.txt"


def raw_controls(out: str) -> list[str]:
    """What in terminal output is not Textual's own drawing: any OSC, BEL, C1
    control, or the alternate-screen switch (the headless app never enters it)."""
    found = [s for s in ("\x1b]", "\x07", "\x1b[?1049", "\x1bP", "\x1b_") if s in out]
    found += [f"C1 {ord(c):#x}" for c in out if 0x80 <= ord(c) < 0xA0]
    return found


def terminal_output(app: App[None]) -> str:
    """The bytes a full repaint of the screen would write to the terminal."""
    update = app.screen._compositor.render_update(full=True)
    assert update is not None
    return str(update.render_segments(app.console))


def clean_everywhere(app: App[None], pane: NativeSessionPane, session: NativeSession) -> None:
    out = terminal_output(app)
    assert raw_controls(out) == [], out
    snap = session.snapshot()
    route = snap.route
    status = tile_status(route.label, route.name, route.billing, snap.state, None, 60)
    tile = tile_lines(status, snap.transcript.items, snap.streaming, None, 60, 30)
    assert not any(has_control(part) for line in tile for part, _ in line)
    web = native_host.text_of(pane).decode()
    assert raw_controls(web) == [] and "\x1b" not in web.removeprefix("\x1b[H\x1b[2J")


def configure(srv: ProviderServer) -> None:
    path = paths.operator_dir() / "native.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"""schema = 1
[endpoint.here]
provider = "openai-compatible"
vendor = "vllm"
base_url = "{srv.base_url}"
[account.me]
provider = "openai-compatible"
credential = "env:ZIRV_LOOPBACK_KEY"
[route.main]
account = "me"
endpoint = "here"
model = "test-model"
[roles]
orchestrator = "main"
"""
    )


def calls(*specs: tuple[str, str, dict[str, str]]) -> list[bytes]:
    """An answer that streams HOSTILE in pieces (the ESC of a sequence in one
    delta, its body in the next), then calls tools."""
    pieces = ["Here: \x1b", HOSTILE[1:20], HOSTILE[20:]]
    events: list[dict[str, object] | str] = [
        {"choices": [{"index": 0, "delta": {"content": piece}}]} for piece in pieces
    ]
    for index, (call_id, name, args) in enumerate(specs):
        call = {
            "index": index,
            "id": call_id,
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        events.append({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
    events.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    events.append("[DONE]")
    return sse(*events)


class PaneApp(App[None], inherit_bindings=False):
    def __init__(self, session: NativeSession) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield NativePane(self.session)


async def until(pilot: object, check: Callable[[], bool], timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await pilot.pause(0.02)  # type: ignore[attr-defined]


def test_visible_shows_every_control_but_newline_and_tab() -> None:
    shown = visible(HOSTILE + "\r\nnext\tcol\rover\x00\x7f")
    assert shown == visible(shown)  # idempotent
    assert "␛]2;pwned-title␇" in shown and "␛]52;c;aGVsbG8=␇" in shown
    assert "␛]8;;http://evil.example/␛\\click" in shown
    assert "␛[?1049h" in shown and "\\x9b31m" in shown
    assert "tail\nnext\tcol␍over␀␡" in shown
    assert not any(ord(c) < 0x20 and c not in "\n\t" or 0x7F <= ord(c) < 0xA0 for c in shown)
    assert visible("\ud800") == "\ufffd"


async def test_escapes_from_the_model_tools_errors_and_approvals_stay_visible(
    server: ProviderServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-loop")
    configure(server)
    workdir = tmp_path / "wd"
    workdir.mkdir()
    (workdir / "evil.txt").write_text(f"file body {HOSTILE}\n")
    (workdir / EVIL_NAME).write_text("x\n")
    server.replies.append(
        Reply(
            chunks=calls(
                ("c1", "read_file", {"path": "evil.txt"}),
                ("c2", "list_dir", {"path": "."}),
                ("c3", f"no_such_tool{OSC_TITLE}", {"x": HOSTILE}),
            ),
            delay=0.3,
        )
    )
    server.replies.append(Reply(chunks=openai_text("Read ", "it.")))
    error = {"error": {"message": f"upstream says {HOSTILE}"}}
    server.replies.append(
        Reply(status=500, content_type="application/json", chunks=[json.dumps(error).encode()])
    )
    server.replies.append(Reply(chunks=calls(("c4", "run_command", {"command": HOSTILE}))))
    server.replies.append(Reply(chunks=openai_text("Understood.")))
    session = open_session(workdir, "escapes")
    spec = PaneSpec(agent="native", adapter=NATIVE_ADAPTER, argv=[], cwd=str(workdir))
    pane = NativeSessionPane(spec, 80, 24, lambda _wd, _name: session)
    app = PaneApp(session)
    async with app.run_test(size=(120, 40)) as pilot:
        assert pane.start({})
        composer = app.query_one(NativeComposer)
        composer.load_text("read the file")
        await pilot.press("enter")
        # Mid-stream: the escape sequences are in the text being streamed.
        await until(pilot, lambda: OSC_CLIPBOARD in session.streaming)
        await pilot.pause(0.05)
        clean_everywhere(app, pane, session)
        assert "␛]52;c;" in session.snapshot().streaming
        # An unknown tool (named with escapes) asks first.
        dialog = app.query_one(NativeApproval)
        await until(pilot, lambda: dialog.ready)
        assert dialog.request is not None and "␛]2;pwned-title␇" in dialog.request.tool
        clean_everywhere(app, pane, session)
        await pilot.press("3")
        # Settled: the answer, the file's content, the listing and the bad tool's name.
        await until(pilot, lambda: session.state == "completed")
        await pilot.press("ctrl+r")  # open the last result, so its body is drawn too
        await pilot.pause(0.05)
        text = str(session.snapshot().transcript.items)
        assert "␛]2;pwned-title␇" in text and "␛]2;named␇.txt" in text
        clean_everywhere(app, pane, session)
        # An error body.
        composer.load_text("again")
        await pilot.press("enter")
        await until(pilot, lambda: session.state == "failed")
        await pilot.pause(0.05)
        assert "upstream says ␛]2;" in str(session.snapshot().transcript.items)
        clean_everywhere(app, pane, session)
        # An approval for a command spelled with them.
        composer.load_text("run it")
        await pilot.press("enter")
        await until(pilot, lambda: dialog.ready)
        assert dialog.request is not None and "␛]52;c;" in dialog.request.scope
        clean_everywhere(app, pane, session)
        await pilot.press("3")
        await until(pilot, lambda: session.state == "completed")
        clean_everywhere(app, pane, session)
        # A command's own output (a `!` line, approved).
        composer.load_text("!printf '\\033]52;c;Y21k\\007 \\302\\233?1049h done'")
        await pilot.press("enter")
        await until(pilot, lambda: dialog.ready)
        await pilot.press("1")
        await until(pilot, lambda: "Y21k" in str(session.snapshot().transcript.items))
        await pilot.press("ctrl+r")
        await pilot.pause(0.05)
        items = session.snapshot().transcript.items
        bodies = [i.outcome.body for i in items if i.outcome is not None]
        assert any("␛]52;c;Y21k␇ \\x9b?1049h done" in body for body in bodies)
        clean_everywhere(app, pane, session)
    assert len(server.seen) == 5
    # The journal keeps what was said: the model is told its own words unchanged.
    history = json.dumps(server.seen[1].body)
    assert json.dumps(OSC_CLIPBOARD)[1:-1] in history


def test_a_journal_written_raw_replays_as_visible_text(tmp_path: Path) -> None:
    """A journal holds what was said (an older build wrote it as it came): its
    rendering is made visible when it is reduced, whatever it holds."""
    from zirv_dash.native.journal import Journal
    from zirv_dash.native.render import render_plain
    from zirv_dash.native.transcript import build_transcript

    journal = Journal(tmp_path / "raw.sqlite")
    journal.append("input", id="in-1", text=f"user {HOSTILE}", steering=False)
    journal.append("assistant", id="m-1", text=f"model {HOSTILE}")
    args = {"path": EVIL_NAME}
    journal.append("tool_call", id="c-1", message_id="m-1", name="read_file", arguments=args)
    diff = f"--- a\n+++ b\n@@ -1 +1 @@\n+{HOSTILE}"
    journal.append("tool_finish", id="c-1", ok=True, output=diff)
    journal.append("error", error_kind="http", label="bad", message=HOSTILE)
    journal.append("notice", text=HOSTILE)
    journal.append("ended", reason=HOSTILE)
    transcript = build_transcript(journal.events())
    text = render_plain(transcript, 100, [i.key for i in transcript.items])
    assert "␛]2;pwned-title␇" in text and "␛]2;named␇.txt" in text
    assert not has_control(text.replace("\n", "")), text
    journal.close()
