"""The knowledge overlay: `.zavet/` records parsed safely, and the real overlay."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from screens.knowledge import KnowledgeScreen, detail_text, row_text
from screens.palette import PaletteScreen
from tests.apphelpers import dash_screen, make_app, tools_only_path, wait_for
from zirv_dash.keymap import load_preset
from zirv_dash.repo import knowledge

DECISION = """---
id: D-001
title: Panes never share a PTY
status: accepted
guards: [zirv_dash/panes/ptysession.py, "zirv_dash/panes/pane.py"]
---
Each pane owns one PTY; the dashboard only reads it.
"""

SPEC = """---
id: S-004
title: Mail delivery
status: draft
confidence: 0.8
paths:
  - zirv_dash/mail/mailbox.py
  - zirv_dash/mail/delivery.py
---
Mail is stored before any wake-up marker.
"""


def write(repo: Path, relative: str, text: str) -> Path:
    path = repo / ".zavet" / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    write(root, "decisions/0001-pty.md", DECISION)
    write(root, "specs/mail.md", SPEC)
    return root


# --- parsing ------------------------------------------------------------------------


def test_decisions_and_specs_with_their_fields(repo: Path) -> None:
    loaded = knowledge.load(repo)
    decision, spec = loaded.records
    assert (decision.kind, decision.id, decision.title, decision.status) == (
        "decision", "D-001", "Panes never share a PTY", "accepted"
    )  # fmt: skip
    assert decision.guards == ["zirv_dash/panes/ptysession.py", "zirv_dash/panes/pane.py"]
    assert decision.body == "Each pane owns one PTY; the dashboard only reads it."
    assert spec.kind == "spec" and spec.paths == [
        "zirv_dash/mail/mailbox.py",
        "zirv_dash/mail/delivery.py",
    ]
    assert spec.confidence == "0.8" and spec.error is None
    assert loaded.problems == []


def test_full_text_search_needs_every_word(repo: Path) -> None:
    loaded = knowledge.load(repo)
    assert [r.id for r in loaded.search("wake-up MARKER")] == ["S-004"]
    assert [r.id for r in loaded.search("ptysession")] == ["D-001"]  # a guard
    assert [r.id for r in loaded.search("pty mail")] == []
    assert len(loaded.search("  ")) == 2


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("no frontmatter here", "no frontmatter"),
        ("---\nid: X\ntitle: t\n", "never closed"),
        ("---\nid X\n---\n", "line 2: expected `key: value`"),
        ("---\n- a\n---\n", "list item with no `key:`"),
        ("---\nid: A\nid: B\n---\n", "`id` given twice"),
        ("---\nid: A\n---\n", "missing `title`"),
        ("---\nid: A\ntitle: t\nguards: [a, b\n---\n", "must end with `]`"),
        ("---\nid: A\ntitle: [x]\n---\n", "`title` must be a single value"),
    ],
)
def test_a_malformed_record_is_listed_with_its_error(repo: Path, text: str, error: str) -> None:
    write(repo, "decisions/0002-bad.md", text)
    records = knowledge.load(repo).records
    bad = next(r for r in records if r.path.name == "0002-bad.md")
    assert bad.error is not None and error in bad.error
    assert len(records) == 3  # the good ones are still there


def test_bad_spec_confidence(repo: Path) -> None:
    write(repo, "specs/x.md", "---\nid: S\ntitle: t\nconfidence: sure\n---\n")
    bad = next(r for r in knowledge.load(repo).records if r.path.name == "x.md")
    assert bad.error is not None and "confidence" in bad.error


def test_hostile_files_are_refused_but_listed(repo: Path, tmp_path: Path) -> None:
    (repo / ".zavet" / "decisions" / "fifo.md").parent.mkdir(exist_ok=True)
    os.mkfifo(repo / ".zavet" / "decisions" / "fifo.md")
    (repo / ".zavet" / "decisions" / "link.md").symlink_to("/etc/passwd")
    write(repo, "decisions/huge.md", "---\n" + "x" * (knowledge.MAX_RECORD_BYTES + 1))
    (repo / ".zavet" / "decisions" / "latin1.md").write_bytes(b"---\nid: \xe9\n---\n")
    records = {r.path.name: r for r in knowledge.load(repo).records}
    assert "not a regular file" in (records["fifo.md"].error or "")
    assert "symlink" in (records["link.md"].error or "")
    assert "too large" in (records["huge.md"].error or "")
    assert "not UTF-8" in (records["latin1.md"].error or "")
    assert str(repo) not in (records["fifo.md"].error or "")  # paths shown repo-relative


def test_no_zavet_folder_and_the_record_cap(tmp_path: Path) -> None:
    assert knowledge.load(tmp_path).records == []
    for n in range(knowledge.MAX_RECORDS + 3):
        write(tmp_path, f"notes/{n:04}.md", f"---\nid: N{n}\ntitle: t\n---\n")
    loaded = knowledge.load(tmp_path)
    assert len(loaded.records) == knowledge.MAX_RECORDS
    assert "more than" in loaded.problems[0]


def test_record_text_is_never_markup_and_has_no_controls(repo: Path) -> None:
    write(
        repo,
        "decisions/0003-evil.md",
        "---\nid: E-1\ntitle: see [bold red]X[/] $(rm -rf /) \x1b]52;c;aGk=\x07\n---\n"
        "[link=file:///]y[/link]\n",
    )
    record = next(r for r in knowledge.load(repo).records if r.path.name == "0003-evil.md")
    row, detail = row_text(record), detail_text(record)
    assert "[bold red]X[/]" in row.plain  # parsed markup would have eaten the brackets
    assert "[link=file:///]y[/link]" in detail.plain
    assert "\x1b" not in row.plain + detail.plain and "\x07" not in detail.plain


# --- the overlay ---------------------------------------------------------------------


def test_the_chord_is_free_in_both_presets() -> None:
    for preset in ("default", "tmux"):
        keymap = load_preset(preset)
        # Only `k`, and no preset rebinds `k` to something else.
        assert keymap.chords_for("knowledge") == ["k"], preset


async def test_overlay_lists_searches_and_closes(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools_only_path(tmp_path, monkeypatch)
    write(repo, "decisions/0002-bad.md", "---\nid: B\n")
    app = make_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        await pilot.press("ctrl+a", "k")
        await wait_for(pilot, lambda: isinstance(app.screen, KnowledgeScreen))
        overlay = app.screen
        assert isinstance(overlay, KnowledgeScreen)
        await wait_for(pilot, lambda: len(overlay.shown) == 3)
        detail = overlay.query_one("#knowledge-detail", Static)
        assert "D-001" in str(detail.render())
        # The first record is the highlighted one: one step down is the second.
        await pilot.press("down")
        await wait_for(pilot, lambda: "never closed" in str(detail.render()))
        await pilot.press("down")
        await wait_for(pilot, lambda: "S-004" in str(detail.render()))
        await pilot.press("up")
        await wait_for(pilot, lambda: "never closed" in str(detail.render()))
        overlay.query_one(Input).value = "delivery"
        await wait_for(pilot, lambda: [r.id for r in overlay.shown] == ["S-004"])
        assert "Mail is stored" in str(detail.render())
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, KnowledgeScreen))


async def test_the_palette_opens_it(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools_only_path(tmp_path, monkeypatch)
    app = make_app(repo)
    async with app.run_test(size=(120, 40)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        await pilot.press("ctrl+a", "p")
        await wait_for(pilot, lambda: isinstance(app.screen, PaletteScreen))
        await pilot.press(*"knowledge", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, KnowledgeScreen))
