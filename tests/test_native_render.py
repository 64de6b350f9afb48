"""The transcript reducer and renderer: pure, deterministic, §12.3's rules."""

from __future__ import annotations

from zirv_dash.native.journal import Event
from zirv_dash.native.render import activity_line, cells, render_item, render_plain, wrap
from zirv_dash.native.transcript import Item, Outcome, build_transcript, classify


def events(*specs: tuple[str, dict[str, object]]) -> list[Event]:
    return [Event(seq, kind, data) for seq, (kind, data) in enumerate(specs, start=1)]


def test_outcomes_follow_the_latest_execution_record() -> None:
    log = events(
        ("input", {"id": "i", "text": "go", "steering": False}),
        ("assistant", {"id": "m", "text": "ok"}),
        ("tool_call", {"id": "a", "message_id": "m", "name": "run_tests", "arguments": {}}),
        ("tool_call", {"id": "b", "message_id": "m", "name": "read_file", "arguments": {}}),
        ("tool_call", {"id": "c", "message_id": "m", "name": "run_command", "arguments": {}}),
        ("tool_start", {"id": "a"}),
        ("tool_finish", {"id": "a", "ok": True, "output": "3 passed, 1 failed"}),
        ("tool_start", {"id": "b"}),
    )
    tools = [i for i in build_transcript(log).items if i.kind == "tool"]
    assert [t.outcome.kind for t in tools if t.outcome] == ["test", "running", "pending"]
    assert tools[0].outcome == Outcome("test", "3 passed, 1 failed", 3, 1)
    reopened = build_transcript([*log, Event(99, "open", {})]).items
    kinds = [i.outcome.kind for i in reopened if i.kind == "tool" and i.outcome]
    assert kinds == ["test", "unknown", "cancelled"]


def test_classify_diff_error_text() -> None:
    diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
    assert classify("write_file", {"ok": True, "output": diff}).kind == "diff"
    assert classify("read_file", {"ok": False, "output": "nope"}).kind == "error"
    assert classify("read_file", {"ok": True, "output": "body"}).kind == "text"


def test_only_the_newest_items_are_kept_behind_one_marker() -> None:
    log = events(*[("notice", {"text": f"n{i}"}) for i in range(12)])
    items = build_transcript(log, limit=5).items
    assert items[0] == Item("elided", "elided", "8")
    assert [i.text for i in items[1:]] == ["n8", "n9", "n10", "n11"]
    assert "⋯ 8 older item(s) elided" in render_plain(build_transcript(log, limit=5), 40)


def test_rendering_rules() -> None:
    user = render_item(Item("user", "u", "hi", steering=True), 40)
    assert "".join(t for t, _ in user[0]) == "> (steering) hi"
    md = render_item(Item("assistant", "a", "# Title\n- one\n```\ncode\n```\nuse `x`"), 40)
    texts = ["".join(t for t, _ in line) for line in md]
    assert texts == ["⏺ Title", "  • one", "  ```", "  code", "  ```", "  use x"]
    assert ("x", "accent") in md[-1]
    tool = Item(
        "tool",
        "t",
        name="edit_file",
        args="path: a",
        outcome=Outcome("diff", "--- a/a\n+++ b/a\n@@ -3,2 +3,2 @@\n ctx\n-old\n+new\n"),
    )
    collapsed = ["".join(t for t, _ in line) for line in render_item(tool, 60)]
    assert collapsed == ["⏺ edit_file(path: a)", "  ⎿ ✓ diff (ctrl+r to expand)"]
    body = ["".join(t for t, _ in line) for line in render_item(tool, 60, expanded=True)][2:]
    assert body[3:] == ["        3     3  ctx", "        4       -old", "              4 +new"]
    unknown = Item("tool", "u", name="run_command", outcome=Outcome("unknown"))
    assert "⁉ outcome unknown — needs reconciliation" in render_item(unknown, 60)[1][1][0]


def test_wrap_is_width_aware_and_hard_splits() -> None:
    assert wrap("aaa bbb ccc", 7) == ["aaa bbb", "ccc"]
    assert wrap("x" * 10, 4) == ["xxxx", "xxxx", "xx"]
    wide = wrap("漢字漢字漢字", 4)
    assert wide == ["漢字", "漢字", "漢字"] and all(cells(p) <= 4 for p in wide)


def test_activity_line_spinner_verb_elapsed_tokens() -> None:
    text = "".join(t for t, _ in activity_line(3.2, 42))
    assert text.endswith("Working… (3s · ↑ 42 tokens · esc to interrupt)")


def test_every_rendered_line_fits_the_width() -> None:
    long = "word " * 60
    items = [
        Item("user", "u", long, steering=True),
        Item("user", "v", long),
        Item("assistant", "a", long),
        Item("notice", "n", long, tone="err"),
        Item(
            "tool",
            "t",
            name="run_command",
            args="command: " + "x" * 200,
            outcome=Outcome("error", long),
        ),
    ]
    for width in (40, 80, 120):
        for item in items:
            for line in render_item(item, width):
                assert cells("".join(text for text, _ in line)) <= width, (item.kind, width)


def test_the_status_line_elides_the_path_to_fit() -> None:
    from zirv_dash.native.render import status_line

    full = status_line("v/m", "r", "api", "generating", 42, "/very/long/path/to/repo", "main")
    text = "".join(t for t, _ in full)
    assert (
        text
        == "v/m  r  native  api  ● generating  context left 42%  /very/long/path/to/repo (main)"
    )
    short = "".join(
        t
        for t, _ in status_line(
            "v/m", "r", "api", "blocked", None, "/very/long/path/to/repo", "main", width=50
        )
    )
    assert cells(short) <= 50 and short.endswith("…th/to/repo (main)") and "▲ blocked" in short
