"""`zirv ctx score TRANSCRIPT [--json]`: rot-score a claude/codex/gemini/qwen transcript."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from zirv_dash.cli.ctx_args import Parser
from zirv_dash.cli.ctx_common import err, parse_args
from zirv_dash.context.reader import PARSERS, TranscriptReader
from zirv_dash.context.reading import ContextReading
from zirv_dash.context.score import RotScore, ScoreConfig, score_turns


def score_main(argv: list[str]) -> int:
    parser = Parser(
        prog="zirv ctx score",
        description="Rot-score a transcript (the harness is told from its lines).",
    )
    parser.add_argument("transcript", metavar="TRANSCRIPT", help="the transcript (JSONL) file")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--agent", choices=sorted(PARSERS), help="the harness, when its lines do not say"
    )
    parser.add_argument(
        "--marker-hook", action="store_true", help="the reply-marker hook is installed"
    )
    args = parse_args(parser, argv)
    if isinstance(args, int):
        return args
    path = Path(args.transcript)
    problem = _unreadable(path)
    if problem:
        err("score", problem)
        return 2
    reader = TranscriptReader(path, args.agent)
    try:
        reading = reader.catch_up()
    except OSError as exc:
        err("score", f"{path}: cannot read ({exc.strerror or exc})")
        return 2
    if reading is None:
        err("score", f"{path}: no claude, codex, gemini or qwen records found; pass --agent")
        return 2
    config = _config()
    if isinstance(config, str):
        err("score", config)
        return 2
    result = score_turns(
        reader.turns(), reading.tokens, reading.window, config, marker_hook=args.marker_hook
    )
    if args.json:
        out = result.to_json()
        out["harness"] = reader.harness
        out["window"] = reading.window
        out["malformed_lines"] = reading.malformed_lines
        print(json.dumps(out, sort_keys=True))
    else:
        print(summary(reader.harness or "?", reading, result))
    return 0


def _config() -> ScoreConfig | str:
    """`[score]` from the settings layers, or why they cannot be read."""
    from zirv_dash.config.context_policy import score_config
    from zirv_dash.config.errors import ConfigError
    from zirv_dash.config.layers import load_settings

    try:
        return score_config(load_settings())
    except ConfigError as exc:
        return str(exc)


def _unreadable(path: Path) -> str | None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return f"{path}: no such file"
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror or exc})"
    if not stat.S_ISREG(st.st_mode):
        return f"{path}: not a regular file"
    return None


def summary(harness: str, reading: ContextReading, result: RotScore) -> str:
    """The human form: verdict line, context line, one line per signal."""
    tokens = "–" if reading.tokens is None else f"{reading.tokens:,}"
    window = "–" if reading.window is None else f"{reading.window:,}"
    percent = "" if reading.percent is None else f" ({reading.percent:g}%)"
    cost = "–" if reading.cost_usd is None else f"${reading.cost_usd:.2f} (estimate)"
    lines = [
        f"✻ {result.score} {result.verdict}  ·  {harness} · {reading.model or '–'}",
        f"context {tokens} / {window}{percent}  ·  gate {result.floor:,}–{result.ceiling:,}",
        f"turns {reading.turns} ({result.turns} since compaction)  ·  cost {cost}",
    ]
    for signal in result.signals:
        value = "–" if signal.value is None else f"{signal.value:g}"
        lines.append(f"  {signal.name:<13} {value:>10}  {signal.points:g} pts")
    if reading.malformed_lines:
        lines.append(f"  ({reading.malformed_lines} malformed line(s) skipped)")
    return "\n".join(lines)
