"""Finding a pane's conversation file where each harness writes it (paths from its package)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from zirv_dash.context.locate import locate, watch_root


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "QWEN_RUNTIME_DIR"):
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    return home


def touch(path: Path, text: str = "{}\n", age: float = 0.0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if age:
        moment = time.time() - age
        os.utime(path, (moment, moment))
    return path


SESSION = "0a1b2c3d-1111-4222-8333-444455556666"


def test_claude_by_its_pinned_session_id(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cwd = Path("/work/my.repo")
    assert locate("claude", SESSION, cwd, time.time(), home=home) is None  # not written yet
    path = touch(home / ".claude" / "projects" / "-work-my-repo" / f"{SESSION}.jsonl")
    assert locate("claude", SESSION, cwd, time.time(), home=home) == path
    assert watch_root("claude", cwd, home=home) == path.parent
    assert locate("claude", "../../etc/passwd", cwd, 0, home=home) is None
    other = tmp_path / "claude-config"
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(other))
    moved = touch(other / "projects" / "-work-my-repo" / f"{SESSION}.jsonl")
    assert locate("claude", SESSION, cwd, time.time(), home=home) == moved


def rollout(home: Path, name: str, cwd: str, age: float = 0.0) -> Path:
    day = home / ".codex" / "sessions" / time.strftime("%Y/%m/%d")
    meta = {"type": "session_meta", "payload": {"id": name, "cwd": cwd}}
    return touch(day / f"rollout-{name}.jsonl", json.dumps(meta) + "\n", age)


def test_codex_by_cwd_and_start_time_each_pane_its_own(home: Path) -> None:
    started = time.time() - 5
    rollout(home, "old", "/work/repo", age=3600)  # before the pane: another conversation
    rollout(home, "elsewhere", "/work/other")
    first = rollout(home, "a", "/work/repo")
    found = locate("codex", SESSION, Path("/work/repo"), started, home=home)
    assert found == first
    assert (
        locate("codex", SESSION, Path("/work/repo"), started, home=home, exclude=frozenset({first}))
        is None
    )
    assert watch_root("codex", Path("/work/repo"), home=home) == home / ".codex" / "sessions"


def test_gemini_through_its_project_registry(home: Path) -> None:
    cwd = Path("/work/repo")
    assert locate("gemini", SESSION, cwd, 0, home=home) is None  # no registry: unknown
    touch(home / ".gemini" / "projects.json", json.dumps({"projects": {"/work/repo": "repo-1"}}))
    chats = home / ".gemini" / "tmp" / "repo-1" / "chats"
    assert watch_root("gemini", cwd, home=home) == chats
    started = time.time() - 5
    touch(chats / "session-old.jsonl", age=3600)
    new = touch(chats / "session-new.jsonl")
    assert locate("gemini", SESSION, cwd, started, home=home) == new


def test_qwen_by_its_sanitised_cwd(home: Path) -> None:
    chats = home / ".qwen" / "projects" / "-work-repo" / "chats"
    new = touch(chats / "abc.jsonl")
    assert locate("qwen", SESSION, Path("/work/repo"), time.time() - 5, home=home) == new


def test_a_harness_that_records_nothing_is_never_located(home: Path) -> None:
    assert locate("opencode", SESSION, Path("/work/repo"), 0, home=home) is None
    assert watch_root("pi", Path("/work/repo"), home=home) is None
