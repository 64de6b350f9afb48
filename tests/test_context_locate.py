"""Finding a pane's conversation file where each harness writes it (paths from its package)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from zirv_dash.context.locate import (
    claude_slug,
    locate,
    recent_codex,
    relevant,
    subagent_files,
    watch_root,
)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in (
        "CLAUDE_CONFIG_DIR",
        "CODEX_HOME",
        "QWEN_RUNTIME_DIR",
        "QWEN_HOME",
        "GEMINI_CLI_HOME",
    ):
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


def test_claude_slug_of_a_long_path_is_cut_and_hashed_as_claude_code_does(home: Path) -> None:
    # Expected values from the bundle's own `$E` / `jCe` (claude-code 2.1.197)
    # run on the same strings.
    long = "/work/" + "x" * 250
    assert claude_slug(long) == "-work-" + "x" * 194 + "-l0uv69"
    assert claude_slug("/tmp/\u00e9\U0001f600/z") == "-tmp-----z"  # per UTF-16 unit
    assert claude_slug("/a") == "-a"
    # an older release hashed the tail differently: any dir with the 200-unit prefix
    older = touch(
        home / ".claude" / "projects" / ("-work-" + "x" * 194 + "-oldhash") / f"{SESSION}.jsonl"
    )
    assert locate("claude", SESSION, Path(long), 0, home=home) == older
    exact = touch(home / ".claude" / "projects" / claude_slug(long) / f"{SESSION}.jsonl")
    assert locate("claude", SESSION, Path(long), 0, home=home) == exact


def test_claude_slug_is_of_the_real_path(home: Path, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    path = touch(home / ".claude" / "projects" / claude_slug(real) / f"{SESSION}.jsonl")
    assert locate("claude", SESSION, link, 0, home=home) == path
    assert watch_root("claude", link, home=home) == path.parent


def test_an_unpinned_claude_is_found_by_time_not_its_predecessor(home: Path) -> None:
    project = home / ".claude" / "projects" / "-work-repo"
    started = time.time() - 5
    touch(project / "before.jsonl", age=3600)
    old = touch(project / f"{SESSION}.jsonl")  # the predecessor, claimed by its pane
    new = touch(project / "successor.jsonl")
    cwd = Path("/work/repo")
    found = locate("claude", "x", cwd, started, home=home, pinned=False, exclude=frozenset({old}))
    assert found == new
    keep = relevant("claude", SESSION)
    assert keep(str(project / f"{SESSION}.jsonl"))
    assert keep(str(project / SESSION / "subagents" / "agent-a1.jsonl"))
    assert not keep(str(project / "successor.jsonl"))
    assert relevant("claude", SESSION, pinned=False)(str(project / "successor.jsonl"))


def test_claude_subagent_files_where_claude_code_writes_them(home: Path) -> None:
    main = touch(home / ".claude" / "projects" / "-work-repo" / f"{SESSION}.jsonl")
    assert subagent_files(main) == []
    sub = main.parent / SESSION / "subagents"
    one = touch(sub / "agent-a1.jsonl")
    nested = touch(sub / "workflows" / "run-1" / "agent-b2.jsonl")
    touch(sub / "notes.txt")
    touch(sub / "agent-meta.meta.json")
    assert subagent_files(main) == sorted([one, nested])


def test_gemini_home_moves_and_markers_find_an_unregistered_project(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    moved = tmp_path / "gemini-home"
    monkeypatch.setenv("GEMINI_CLI_HOME", str(moved))
    tmp = moved / ".gemini" / "tmp"
    touch(tmp / "other" / ".project_root", "/work/other\n")
    touch(tmp / "repo-2" / ".project_root", "/work/repo\n")
    chats = tmp / "repo-2" / "chats"
    assert watch_root("gemini", Path("/work/repo"), home=home) == chats
    started = time.time() - 5
    touch(chats / "notes.jsonl")  # not a session file
    touch(chats / ("a" * 36) / ("b" * 36 + ".jsonl"))  # a subagent's, in its parent's dir
    main = touch(chats / "session-2026-01-01T10-00-abcd1234.jsonl")
    assert locate("gemini", SESSION, Path("/work/repo"), started, home=home) == main


def test_qwen_home_moves_its_root_and_the_runtime_dir_wins(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QWEN_HOME", str(tmp_path / "qh"))
    assert watch_root("qwen", Path("/work/repo"), home=home) == (
        tmp_path / "qh" / "projects" / "-work-repo" / "chats"
    )
    monkeypatch.setenv("QWEN_RUNTIME_DIR", str(tmp_path / "qr"))
    chats = tmp_path / "qr" / "projects" / "-work-repo" / "chats"
    new = touch(chats / "abc.jsonl")
    assert locate("qwen", SESSION, Path("/work/repo"), time.time() - 5, home=home) == new


def test_recent_codex_for_a_handover_newest_of_the_cwd_bounded(home: Path) -> None:
    root = home / ".codex" / "sessions"
    meta = json.dumps({"type": "session_meta", "payload": {"cwd": "/work/repo"}}) + "\n"
    old = touch(root / "2025" / "12" / "31" / "rollout-2025-12-31T10-00-00-aaaa.jsonl", meta)
    new = touch(root / "2026" / "01" / "02" / "rollout-2026-01-02T10-00-00-bbbb.jsonl", meta)
    other = json.dumps({"type": "session_meta", "payload": {"cwd": "/work/other"}}) + "\n"
    touch(root / "2026" / "01" / "03" / "rollout-2026-01-03T10-00-00-cccc.jsonl", other)
    assert recent_codex("/work/repo", home=home) == new
    assert recent_codex("/work/repo", home=home, session_id="aaaa") == old
    assert recent_codex("/work/none", home=home) is None
