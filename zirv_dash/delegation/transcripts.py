"""Where a claude worker's conversation is kept, to resume it in a follow-up."""

from __future__ import annotations

from pathlib import Path

from zirv_dash.context.locate import claude_root, claude_slug


def claude_transcript(session: str, cwd: str) -> Path:
    """Claude Code's transcript of conversation `session` run in `cwd`
    (`<config>/projects/<slug of cwd>/<session>.jsonl`, see `context.locate`)."""
    return claude_root() / "projects" / claude_slug(cwd) / f"{session}.jsonl"
