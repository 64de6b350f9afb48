"""The assistant text being streamed, as live Markdown under the `⏺` bullet.

A Textual `Markdown` document, fed by `Markdown.append`: each append re-parses
from the start of the document's last block only, so a long answer costs per
token what its last paragraph or code fence costs, never the whole text, and
never the transcript above it. Fragments that arrive while an append is still
being applied are joined into the next one (as `MarkdownStream` does), so the
widget never falls behind a fast stream. When the block is settled (journaled)
the text becomes a transcript item and this block empties.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Markdown, Static


class StreamBlock(Horizontal):
    DEFAULT_CSS = """
    StreamBlock { height: auto; width: 1fr; display: none; }
    StreamBlock > #stream-bullet { width: 2; color: #d97757; text-style: bold; }
    StreamBlock > Markdown { width: 1fr; height: auto; padding: 0; margin: 0; }
    StreamBlock > Markdown > MarkdownParagraph { margin: 0 0 1 0; }
    StreamBlock > Markdown > MarkdownHeader {
        margin: 0 0 1 0;
        content-align: left top;
        background: transparent;
        color: $foreground;
        text-style: bold;
    }
    StreamBlock > Markdown > MarkdownFence { margin: 0 0 1 0; }
    StreamBlock > Markdown > MarkdownBulletList, StreamBlock > Markdown > MarkdownOrderedList {
        margin: 0 0 1 0;
    }
    StreamBlock > Markdown > *:last-child { margin-bottom: 0; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.target = ""
        """The whole text the session has streamed so far ('' when none)."""
        self.shown = ""
        """The text the document holds now."""
        self._applying = False
        self.document = Markdown()

    def compose(self) -> ComposeResult:
        yield Static("⏺ ", id="stream-bullet")
        yield self.document

    def feed(self, text: str) -> None:
        """The streamed text so far; applied in order, coalesced while busy."""
        if text == self.target:
            return
        self.target = text
        if not text:
            # Hidden at once: the same text is now a settled item above.
            self.display = False
        if not self._applying and self.is_mounted:
            self._applying = True
            self.call_later(self._apply)

    async def _apply(self) -> None:
        try:
            while self.shown != self.target:
                target = self.target
                if self.shown and target.startswith(self.shown):
                    await self.document.append(target[len(self.shown) :])
                else:
                    # A new block (or a reset): emptied, then appended. `update` with
                    # text would leave the parse mark past a trailing blank line, and
                    # the next append would then overwrite the document's last block.
                    await self.document.update("")
                    if target:
                        await self.document.append(target)
                self.shown = target
                self.display = bool(self.target)
        finally:
            self._applying = False
            if self.shown != self.target and self.is_mounted:
                self._applying = True
                self.call_later(self._apply)

    def on_mount(self) -> None:
        if self.target != self.shown:
            self._applying = True
            self.call_later(self._apply)
