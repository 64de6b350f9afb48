"""Opening a file in the user's editor (`$VISUAL`, `$EDITOR`, else vi)."""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping


def editor_argv(path: str, line: int | None, env: Mapping[str, str] = os.environ) -> list[str]:
    """The command line that opens `path` at `line` (editors take `+N`)."""
    editor = env.get("VISUAL") or env.get("EDITOR") or "vi"
    return [*shlex.split(editor), *([f"+{line}"] if line else []), path]


def run_editor(argv: list[str], cwd: str) -> int:
    """Run the editor in the foreground (the caller has suspended its UI);
    raises OSError when it cannot start."""
    return subprocess.run(argv, cwd=cwd, check=False).returncode
