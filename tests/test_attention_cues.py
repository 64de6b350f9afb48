"""The attention and input-prompt tables' patterns are compiled on first use
(start-up does not pay for ~80 regular expressions); each must still compile,
and searching must behave as the compiled pattern does."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from zirv_dash.attention.input_prompts import INPUT_PROMPTS
from zirv_dash.attention.patterns import PATTERNS, Cue, cue


def _every_cue() -> list[Cue]:
    found: list[Cue] = []
    for pattern in PATTERNS:
        found.extend(pattern.cues + pattern.blockers)
    prompts = list(INPUT_PROMPTS.values())
    prompts += [v for p in prompts for v in p.variants]
    for prompt in prompts:
        found.append(prompt.composer)
        found.extend(c for c in (prompt.above, prompt.below, prompt.footer) if c is not None)
        found.extend(prompt.busy)
    return found


def test_every_cue_compiles_case_insensitively() -> None:
    cues = _every_cue()
    assert len(cues) > 40
    for each in cues:
        assert each.compiled().flags & re.IGNORECASE, each


def test_a_cue_searches_as_its_compiled_pattern_does() -> None:
    yes = cue(r"^(?:❯\s*)?1[.)]\s+yes\b")
    assert yes.search("❯ 1. Yes, proceed") is not None
    assert yes.search("2. No") is None
    assert yes.search("❯ 1. YES")[0] == "❯ 1. YES"  # type: ignore[index]


def test_importing_the_tables_compiles_none_of_them() -> None:
    probe = (
        "import json\n"
        "from zirv_dash.attention import input_prompts, patterns as attention_patterns\n"
        "cues = [c for p in attention_patterns.PATTERNS for c in p.cues + p.blockers]\n"
        "cues += [p.composer for p in input_prompts.INPUT_PROMPTS.values()]\n"
        "print(json.dumps(sum(c._compiled is not None for c in cues)))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) == 0
