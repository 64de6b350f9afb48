"""Shared fixtures: every test gets its own state dir and operator dir."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.tmuxharness import Tmux, base_env

CLEARED_PREFIXES = (
    "ZIRV_CTX_DASH",
    "ZIRV_CTX_MAIL",
    "ZIRV_AGENT_",
    "ZIRV_CTX_SCORE",
    "ZIRV_CTX_TOKEN_",
    "ZIRV_CTX_PACE",
    "ZIRV_CTX_FIVE_HOUR",
    "ZIRV_CTX_SEVEN_DAY",
    "ZIRV_CTX_FALLBACK",
)
"""The operator's own settings variables: no test reads them."""


@pytest.fixture(autouse=True)
def isolated_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    state = tmp_path / "state"
    home = tmp_path / "operator"
    monkeypatch.setenv("ZIRV_CTX_STATE_DIR", str(state))
    monkeypatch.setenv("ZIRV_HOME", str(home))
    for name in list(os.environ):
        if name.startswith(CLEARED_PREFIXES) or name in (
            "ZIRV_CTX_SESSION",
            "ZIRV_CTX_SOCKET",
            "ZIRV_CTX_AGENT",
            "ZIRV_CTX_DASH_REQUESTS",
            "CLAUDECODE",
            "CLAUDE_PID",
            "ZIRV_ALLOW_NESTED",
        ):
            monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ZIRV_DEMO_WORK_SECS", "0.2")
    # Shell panes run /bin/sh unless a test asks for bash: an interactive bash
    # would source the machine's ~/.bashrc (and its `pyenv rehash`).
    monkeypatch.setenv("SHELL", "/bin/sh")
    yield state


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME where the harnesses' own files (transcripts, settings) go, with
    none of the variables that would move them elsewhere."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    for name in (
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "GEMINI_CLI_HOME",
        "QWEN_HOME",
        "QWEN_RUNTIME_DIR",
    ):
        monkeypatch.delenv(name, raising=False)
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A git repository with a local `.zirv/`: where bare `zirv` opens the dashboard."""
    repo = tmp_path / "proj"
    (repo / ".zirv").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


@pytest.fixture
def tmux(project: Path, tmp_path: Path) -> Iterator[Tmux]:
    """A private tmux server whose sessions start in `project` with a clean env."""
    t = Tmux(project, base_env(tmp_path / "state", tmp_path / "operator"))
    yield t
    t.kill()
