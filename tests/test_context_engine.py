"""Context health in the engine: a real pane's transcript followed as it grows, and acted on."""

from __future__ import annotations

import os
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.test_engine import until
from zirv_dash.cli.ctx_context import context_of
from zirv_dash.config.layers import AdapterGate, load_settings
from zirv_dash.context import decisions
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.panes.pane import Pane
from zirv_dash.runtime import Engine

pytestmark = pytest.mark.timeout(90)

FAKE = Path(__file__).parent / "fixtures" / "fake_claude.py"


def make_engine(repo: Path, **flags: Any) -> Engine:
    settings = load_settings(repo, flags={"dash": {"idle_quiet_ms": 200}, **flags})
    return Engine(Dashboard(settings, repo, AdapterGate(), manage_state=True))


def claude_pane(engine: Engine, repo: Path, tokens: str, monkeypatch: pytest.MonkeyPatch) -> Pane:
    """The stand-in, pinned to the pane's session id as the dashboard pins claude."""
    monkeypatch.setenv("FAKE_CLAUDE_TOKENS", tokens)
    session = str(uuid.uuid4())
    argv = [sys.executable, str(FAKE), "--session-id", session]
    pane = engine.spawn("claude", argv=argv, cwd=str(repo), session_id=session)
    assert pane is not None
    return pane


def text(pane: Pane) -> str:
    return "\n".join(pane.model_view.lines())


async def test_a_growing_transcript_reaches_the_row_the_inspector_and_status(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(tmp_path)
    engine.start()
    try:
        pane = claude_pane(engine, tmp_path, "20000,60000", monkeypatch)
        await until(lambda: "❯" in text(pane))
        health = engine.dash.health
        assert health[pane.short].reading is None  # nothing written yet: unknown
        engine.send_input(b"first\r", short=pane.short)
        await until(lambda: (r := health[pane.short].reading) is not None and r.tokens == 20_000)
        assert health[pane.short].row_mark() == "▁"
        engine.send_input(b"second\r", short=pane.short)
        await until(lambda: (r := health[pane.short].reading) is not None and r.tokens == 60_000)
        reading = health[pane.short].reading
        assert reading is not None and reading.turns == 2 and reading.percent == 30.0
        assert reading.cost_usd is not None and reading.cost_usd > 0
        await until(lambda: (c := context_of(pane.short)) is not None and c["tokens"] == 60_000)
        context = context_of(pane.short)
        assert context is not None and context["verdict"] == "healthy"
        assert str(home) in context["source"]
    finally:
        engine.close()


async def test_compact_is_typed_at_the_prompt_and_logged(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(tmp_path, score={"auto": "compact"})
    engine.start()
    try:
        pane = claude_pane(engine, tmp_path, "170000", monkeypatch)  # 85 %: past the ceiling
        await until(lambda: "❯" in text(pane))
        engine.send_input(b"work\r", short=pane.short)
        await until(lambda: "compacted" in text(pane), timeout=30)
        await until(lambda: engine.dash.health[pane.short].verdict == "healthy")
        kinds = [d["kind"] for d in decisions.read()]
        assert kinds[:2] == ["advise", "compact"]
        assert any("typed /compact" in d["detail"] for d in decisions.read())
    finally:
        engine.close()


async def test_advise_only_marks_the_row_and_types_nothing(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(tmp_path)  # auto = "advise", the default
    engine.start()
    try:
        pane = claude_pane(engine, tmp_path, "170000", monkeypatch)
        await until(lambda: "❯" in text(pane))
        engine.send_input(b"work\r", short=pane.short)
        await until(lambda: engine.dash.health[pane.short].verdict == "compact")
        assert engine.dash.health[pane.short].row_mark() == "▇⚠"
        await until(lambda: [d["kind"] for d in decisions.read()] == ["advise"])
        await until(lambda: pane.is_idle())
        assert "compacted" not in text(pane)
        assert engine.dash.current_notice() is not None
    finally:
        engine.close()


async def test_restart_is_offered_never_forced(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "1")  # every call fails, the same call five times
    engine = make_engine(tmp_path, score={"auto": "restart", "token_ceiling": 150_000})
    engine.start()
    try:
        pane = claude_pane(engine, tmp_path, "170000", monkeypatch)
        await until(lambda: "❯" in text(pane))
        session, pid = pane.session_id, pane.pty.pid if pane.pty else None
        engine.send_input(b"work\r", short=pane.short)
        await until(lambda: engine.dash.health[pane.short].verdict == "restart")
        score = engine.dash.health[pane.short].score
        assert score is not None and score.score == 70  # 40 failures + 30 repeats, past the ceiling
        await until(lambda: "restart-offer" in [d["kind"] for d in decisions.read()])
        offer = next(d for d in decisions.read() if d["kind"] == "restart-offer")
        assert "Ctrl+A o" in offer["detail"]
        # Offered, not done: the same child and conversation go on (compact was typed).
        await until(lambda: "compacted" in text(pane), timeout=30)
        assert pane.session_id == session and pane.pty is not None and pane.pty.pid == pid
    finally:
        engine.close()


async def test_a_native_pane_reads_its_own_journal(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.fixtures.native.server import ProviderServer, Reply, openai_text
    from tests.test_native_pane_loopback import configure

    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", "sk-loop")
    with ProviderServer() as server:
        configure(server, "openai-compatible", "vllm")
        server.replies.append(Reply(chunks=openai_text("Hello.", usage=(4_321, 55))))
        engine = make_engine(tmp_path)
        engine.start()
        try:
            pane = engine.spawn("native", cwd=str(tmp_path))
            assert pane is not None and pane.kind == "native"
            await until(lambda: pane.at_input_prompt())
            assert pane.deliver("hi") == "sent"
            await until(
                lambda: (
                    (r := engine.dash.health[pane.short].reading) is not None and r.tokens == 4_321
                )
            )
            reading = engine.dash.health[pane.short].reading
            assert reading is not None
            assert reading.session_tokens == 4_321 + 55 and reading.turns == 1
            assert "journal usage.input" in reading.source
            assert reading.window is None and reading.percent is None  # no cited window: –
        finally:
            engine.close()


async def test_taking_the_restart_offer_starts_a_fresh_conversation(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "claude").write_text(f'#!/bin/sh\nexec {sys.executable} {FAKE} "$@"\n')
    (bindir / "claude").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    engine = make_engine(tmp_path)
    engine.start()
    try:
        pane = claude_pane(engine, tmp_path, "170000", monkeypatch)
        await until(lambda: "❯" in text(pane))
        engine.send_input(b"work\r", short=pane.short)
        await until(lambda: engine.dash.health[pane.short].verdict == "compact")
        first = engine.context.watches[pane.short].path
        assert first is not None and first.stem == pane.session_id
        await until(lambda: pane.is_idle())
        ack = engine.swaps.request(pane.short, "claude", None, fresh=True)
        assert ack.ok, ack.reason
        await until(lambda: "--append-system-prompt-file" in pane.spec.argv)
        assert "--resume" not in pane.spec.argv  # a new conversation, not the rotten one
        await until(lambda: "❯" in text(pane))
        engine.send_input(b"again\r", short=pane.short)
        await until(
            lambda: (
                (w := engine.context.watches.get(pane.short)) is not None
                and w.path is not None
                and w.path != first
            )
        )
        await until(
            lambda: (r := engine.dash.health[pane.short].reading) is not None and r.turns == 1
        )
    finally:
        engine.close()
