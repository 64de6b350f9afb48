"""At the glass: a model's escape sequences neither retitle nor write the clipboard.

`zirv chat --runtime native` in a real tmux, with OSC 52 accepted into tmux's
buffers. A loopback model answers with OSC 2 (title) and OSC 52 (clipboard):
tmux's pane title and buffers stay untouched, and the pane shows the sequences
as visible placeholders.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.native.server import ProviderServer, Reply, openai_text, serve
from tests.test_native_pane_loopback import configure
from tests.tmuxharness import ZIRV, Tmux

pytestmark = pytest.mark.tmux
server = pytest.fixture(serve)
REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def dash(tmux: Tmux) -> Iterator[Tmux]:
    tmux.env["PYTHONPATH"] = str(REPO)
    tmux.env["ZIRV_LOOPBACK_KEY"] = "sk-tmux"
    yield tmux


def test_a_models_title_and_clipboard_sequences_do_not_reach_the_terminal(
    dash: Tmux, server: ProviderServer, project: Path
) -> None:
    configure(server, "openai-compatible", "vllm")
    answer = ("Look ", "\x1b]2;pwned-title\x07", "\x1b]52;c;aGVsbG8=\x07", " over.")
    server.replies.append(Reply(chunks=openai_text(*answer)))
    dash.start([*ZIRV, "chat", "--runtime", "native"], 120, 40)
    dash.run("set-option", "-s", "set-clipboard", "on")  # OSC 52 would make a buffer
    dash.wait_for("enter sends", timeout=30)
    dash.text("say it")
    dash.keys("Enter")
    screen = dash.wait_for("✓ completed", timeout=30)
    title = dash.run("display-message", "-p", "-t", "main", "#{pane_title}")
    assert "pwned" not in title
    assert dash.run("list-buffers") == ""
    assert "␛]2;pwned-title␇" in screen and "␛]52;c;aGVsbG8=␇" in screen
    dash.keys("C-q")  # idle: the conversation ends; the dashboard stays on its row
    dash.wait_for("Exited", timeout=30)
    dash.quit()
