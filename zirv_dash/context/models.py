"""Real context windows of the models a harness can state, for a transcript that does not.

A transcript's own figure always wins (codex's `info.model_context_window`, qwen's
`contextWindowSize`); this table is only for harnesses that never write one. Every
entry is cited; a model not listed here has an unknown window (None), never a guess.

Sources, read from the installed CLI packages (`npm install -g --prefix /tmp/vendor`,
2026-12-07):

- claude: @anthropic-ai/claude-code 2.1.197, native binary
  `node_modules/@anthropic-ai/claude-code-linux-x64/claude`: its model table
  (`{id:"claude-…",…,context:{window:N,…}}`) and the window function that returns
  1e6 for an id ending in `[1m]`. Ids the table lists without a `context` entry
  (haiku-4-5, opus-4-0/4-1/4-5, mythos-5, the 3.x models) fall to Claude Code's
  `uNt=200000` default, which is the figure it shows for them too.
- gemini: @google/gemini-cli 0.61.0, `bundle/chunk-5FZXKDXH.js` `tokenLimit()`:
  1,048,576 for every Gemini model (`DEFAULT_TOKEN_LIMIT`), 256,000 for gemma-4.
"""

from __future__ import annotations

import re

CLAUDE_DEFAULT = 200_000
ONE_MILLION = 1_000_000

WINDOWS: dict[str, int] = {
    # claude-code 2.1.197 model table, `context.window`.
    "claude-sonnet-4": 200_000,
    "claude-sonnet-4-0": 200_000,
    "claude-sonnet-4-5": 200_000,
    "claude-sonnet-4-6": 200_000,
    "claude-opus-4-6": 200_000,
    "claude-sonnet-5": ONE_MILLION,
    "claude-opus-4-7": ONE_MILLION,
    "claude-opus-4-8": ONE_MILLION,
    "claude-fable-5": ONE_MILLION,
    # Listed in the same table without `context`: Claude Code's 200000 default.
    "claude-haiku-4-5": CLAUDE_DEFAULT,
    "claude-opus-4": CLAUDE_DEFAULT,
    "claude-opus-4-0": CLAUDE_DEFAULT,
    "claude-opus-4-1": CLAUDE_DEFAULT,
    "claude-opus-4-5": CLAUDE_DEFAULT,
    "claude-mythos-5": CLAUDE_DEFAULT,
    "claude-3-7-sonnet": CLAUDE_DEFAULT,
    "claude-3-5-sonnet": CLAUDE_DEFAULT,
    "claude-3-5-haiku": CLAUDE_DEFAULT,
}

PREFIX_WINDOWS: tuple[tuple[str, int], ...] = (
    # gemini-cli 0.61.0 `tokenLimit()`; gemma-4 first, it is the exception.
    ("gemma-4-", 256_000),
    ("gemini-", 1_048_576),
)

_DATE = re.compile(r"-\d{8}$")
_BEDROCK = re.compile(r"^(?:[a-z]{2}\.)?anthropic\.|-v\d+(?::\d+)?$")


def normalise(model: str) -> str:
    """A model id without its `[1m]` suffix, provider prefix, date or version tail."""
    key = model.strip().lower()
    key = key.rsplit("/", 1)[-1]
    key = re.sub(r"(\[1m\])+$", "", key)
    key = _BEDROCK.sub("", key)
    key = key.split("@", 1)[0]  # vertex ids: claude-sonnet-4-5@20250929
    return _DATE.sub("", key)


def window_for(model: str | None) -> int | None:
    """The model's context window in tokens, or None when no cited figure exists."""
    if not model:
        return None
    if model.strip().lower().endswith("[1m]"):
        return ONE_MILLION  # claude-code: the `[1m]` variant always has 1M
    key = normalise(model)
    if key in WINDOWS:
        return WINDOWS[key]
    for prefix, window in PREFIX_WINDOWS:
        if key.startswith(prefix):
            return window
    return None
