"""One pane's conversation, followed: find its transcript, read it step by step, score it.

No I/O of its own beyond the bounded reads: the engine says when to look (the
file watcher saw the file change, the pane's state changed) and how often to
step while a long file catches up, so nothing here blocks the loop for longer
than one `STEP_BYTES` read and parse.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from zirv_dash.context import locate, pricing
from zirv_dash.context.health import PaneHealth
from zirv_dash.context.reader import PARSERS, TranscriptReader
from zirv_dash.context.reading import ContextReading
from zirv_dash.context.score import ScoreConfig, score_turns

STEP_BYTES = 256 * 1024
"""One step's read: a few milliseconds of parsing, so the loop stays responsive
while a long transcript catches up."""


def readable(harness: str) -> bool:
    """Whether this harness writes a transcript we can read."""
    return harness in PARSERS


class SessionWatch:
    """The reading of one pane's transcript (claude, codex, gemini, qwen)."""

    def __init__(
        self,
        harness: str,
        session_id: str,
        cwd: Path,
        started_at: float,
        config: ScoreConfig,
        prices: Mapping[str, pricing.Price] | None = None,
        *,
        home: Path | None = None,
        pinned: bool = True,
    ) -> None:
        self.harness = harness
        self.pinned = pinned
        """The harness runs with our session id (claude: the file is named by it)."""
        self.session_id = session_id
        self.cwd = cwd
        self.started_at = started_at
        self.config = config
        self.prices = prices
        self.home = home
        self.reader: TranscriptReader | None = None
        self._root: Path | None = None
        self.error: str | None = None
        self._health = PaneHealth(harness, status="reading" if readable(harness) else "unsupported")

    @property
    def path(self) -> Path | None:
        return self.reader.path if self.reader is not None else None

    def root(self) -> Path | None:
        """The directory the file watcher should watch for this pane's transcript
        (kept once known: gemini's comes from a registry file read)."""
        if self._root is None:
            self._root = locate.watch_root(self.harness, self.cwd, home=self.home)
        return self._root

    def find(self, exclude: frozenset[Path] = frozenset()) -> bool:
        """Look for the transcript once (bounded); True once it is known."""
        if self.reader is not None:
            return True
        if not readable(self.harness):
            return False
        found = locate.locate(
            self.harness,
            self.session_id,
            self.cwd,
            self.started_at,
            home=self.home,
            exclude=exclude,
            pinned=self.pinned,
        )
        if found is None:
            return False
        self.reader = TranscriptReader(
            found, self.harness, chunk_bytes=STEP_BYTES, prices=self.prices
        )
        return True

    def step(self) -> bool:
        """Read what was appended (one step); True when the health changed."""
        reader = self.reader
        if reader is None:
            return False
        try:
            reading = reader.read()
        except OSError as exc:
            return self._set(PaneHealth(self.harness, status=f"cannot read: {exc.strerror or exc}"))
        if reading is None:
            return False
        return self._set(self._scored(reading, behind=not reader.tail.at_end()))

    def behind(self) -> bool:
        return self.reader is not None and not self.reader.tail.at_end()

    def health(self) -> PaneHealth:
        return self._health

    def _scored(self, reading: ContextReading, behind: bool) -> PaneHealth:
        assert self.reader is not None
        if behind:
            # Half a transcript would score a session that no longer exists.
            return PaneHealth(self.harness, reading, None, "ok", behind=True)
        score = score_turns(self.reader.turns(), reading.tokens, reading.window, self.config)
        return PaneHealth(self.harness, reading, score, "ok")

    def _set(self, health: PaneHealth) -> bool:
        old = self._health
        self._health = health
        return _shown(old) != _shown(health)


def _shown(health: PaneHealth) -> tuple[object, ...]:
    """What of a health the chrome shows (a new read time alone is no change)."""
    r = health.reading
    figures = None if r is None else (r.tokens, r.window, r.session_tokens, r.cost_usd, r.turns)
    score = None if health.score is None else (health.score.score, health.score.verdict)
    return (health.status, health.behind, figures, score)
