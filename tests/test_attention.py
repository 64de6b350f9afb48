"""Needs-you screen patterns (recorded-style screens) and the per-pane state machine."""

from __future__ import annotations

from pathlib import Path

import pytest

from zirv_dash.attention import tracker as attention
from zirv_dash.attention.states import ENDED_STATES, PaneState
from zirv_dash.attention.tracker import AttentionTracker, detect_needs_you

DATA = Path(__file__).parent / "data" / "attention"

# Screen captures of each harness, typed from the vendors' own prompt layouts
# (source strings, snapshot tests and documented screenshots), at 80 columns.
CASES = [
    ("claude", "claude-permission-bash.txt", "needs permission"),
    ("claude", "claude-permission-edit-boxed.txt", "needs permission"),
    ("claude", "claude-question.txt", "needs an answer"),
    ("claude", "claude-plan-approval.txt", "needs approval"),
    ("claude", "claude-idle.txt", None),  # the prose mentions "Do you want to proceed?"
    ("claude", "claude-working.txt", None),
    ("codex", "codex-exec-approval.txt", "needs permission"),
    ("codex", "codex-patch-approval.txt", "needs permission"),
    ("codex", "codex-network-approval.txt", "needs permission"),
    ("codex", "codex-idle.txt", None),
    ("codex", "codex-working.txt", None),
    ("gemini", "gemini-shell-confirm.txt", "needs permission"),
    ("gemini", "gemini-edit-confirm.txt", "needs permission"),
    ("gemini", "gemini-idle.txt", None),  # a question in prose is not a prompt
    ("gemini", "gemini-working.txt", None),
    ("shell", "shell-apt-continue.txt", "needs an answer"),
    ("shell", "shell-ssh-fingerprint.txt", "needs an answer"),
    ("shell", "shell-sudo-password.txt", "needs an answer"),
    ("shell", "shell-answered.txt", None),
    ("claude", "shell-apt-continue.txt", "needs an answer"),  # generic rules apply to all
]


REAL = Path(__file__).parent / "data" / "attention" / "real"
PROMPT_SCREENS = {
    "claude": "claude-2.1.197-input.txt",
    "codex": "codex-0.171.0-input.txt",
}


def at_prompt(t: AttentionTracker, when: float = 0.0) -> AttentionTracker:
    """Show `t` its harness's real, recorded input prompt: quiet then means idle
    (the timing tests below are about clocks, not recognition)."""
    if t.agent in PROMPT_SCREENS:
        lines = (REAL / PROMPT_SCREENS[t.agent]).read_text().splitlines()
        t.screen(lines, when)
    elif t.agent == "demo":
        t.screen(["demo>"], when, (5, 0))
    else:
        t.screen(["$"], when, (2, 0))
    assert t._at_prompt, f"{t.agent}: the prompt screen was not recognised"
    return t


def quiet_clock(t: AttentionTracker) -> AttentionTracker:
    """For the tests of the quiet-time clocks only: every quiet period counts as
    a wait at the prompt, so the clocks can be read as idle/done. (Whether a
    quiet pane is idle or unknown is tested with real screens below.)"""
    t._waits_for_input = lambda idle_at: True  # type: ignore[method-assign]
    return t


def screen(name: str, rows: int = 40) -> list[str]:
    """The capture as a `rows`-line screen (blank rows padded below, like a pane)."""
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return lines[-rows:] + [""] * max(rows - len(lines), 0)


@pytest.mark.parametrize(("agent", "name", "expected"), CASES)
def test_recorded_screens(agent: str, name: str, expected: str | None) -> None:
    assert detect_needs_you(agent, screen(name)) == expected


def test_every_capture_is_covered() -> None:
    assert {p.name for p in DATA.glob("*.txt")} == {name for _, name, _ in CASES}


@pytest.mark.parametrize(
    "name", ["codex-exec-approval.txt", "gemini-shell-confirm.txt", "claude-question.txt"]
)
def test_a_prompt_answered_is_no_longer_needs_you(name: str) -> None:
    agent = name.split("-")[0]
    composer = {
        "codex": ["", "› Ask Codex to do anything", "", "  gpt-5.1-codex medium · ~/repo"],
        "gemini": ["╭──────╮", "│ >   Type your message or @path/to/file │", "╰──────╯"],
        "claude": ["⏺ Noted: backfill with a default.", "─────", "> ", "─────"],
    }[agent]
    lines = (DATA / name).read_text().splitlines() + composer
    assert detect_needs_you(agent, lines) is None


def test_older_codex_approval_layout() -> None:
    lines = [
        "╭──────────────────────────────────────────────╮",
        "│ Shell Command                                │",
        "│ $ cargo test                                 │",
        "╰──────────────────────────────────────────────╯",
        "Allow command?",
        "▌ > 1. Approve",
        "▌   2. Always approve this session",
        "▌   3. Deny and tell Codex what to do",
    ]
    assert detect_needs_you("codex", lines) == "needs permission"


def test_harness_patterns_do_not_leak_to_other_harnesses() -> None:
    assert detect_needs_you("shell", screen("codex-exec-approval.txt")) is None
    assert detect_needs_you("codex", screen("claude-permission-bash.txt")) is None


def test_only_the_bottom_of_the_screen_counts() -> None:
    lines = screen("claude-permission-bash.txt", rows=200) + ["log line"] * 30
    assert detect_needs_you("claude", lines) is None
    yn = ["Proceed? [y/N]", "ok", "$ "]
    assert detect_needs_you("shell", yn) is None


def test_patterns_are_versioned_and_named_uniquely() -> None:
    assert attention.PATTERNS_VERSION == 3
    names = [p.name for p in attention.PATTERNS]
    assert len(names) == len(set(names))
    harnesses = {h for p in attention.PATTERNS for h in p.harnesses}
    assert {"claude", "codex", "gemini"} <= harnesses


def test_empty_and_odd_screens() -> None:
    assert detect_needs_you("claude", []) is None
    assert detect_needs_you("claude", ["", "   ", ""]) is None
    assert detect_needs_you("UnknownAgent", ["Overwrite? (y/n) "]) == "needs an answer"


# --- the state machine ----------------------------------------------------------

PROMPT = screen("claude-permission-bash.txt")
CLEAR = screen("claude-working.txt")


def test_starting_until_first_output() -> None:
    t = quiet_clock(AttentionTracker("claude", idle_quiet_ms=10_000))
    assert t.state(0.0) is PaneState.STARTING
    assert t.state(100.0) is PaneState.STARTING  # quiet without output is not idle
    t.output(1.0)
    assert t.state(1.0) is PaneState.WORKING
    assert t.next_deadline(1.0) == pytest.approx(11.0)
    assert t.state(11.0) is PaneState.IDLE  # the startup banner is not a finished turn


def test_turn_signal_makes_idle_after_half_a_second_of_quiet() -> None:
    t = quiet_clock(AttentionTracker("claude", idle_quiet_ms=10_000))
    t.output(0.0)
    t.input(1.0, submit=True)
    t.set_visible(True, 1.0)
    t.output(2.0)
    t.turn_signal(3.0)
    assert t.state(3.2) is PaneState.WORKING
    assert t.next_deadline(3.2) == pytest.approx(3.5)
    t.output(3.3)  # a last repaint after the hook fired pushes it back
    assert t.state(3.6) is PaneState.WORKING
    assert t.state(3.8) is PaneState.IDLE


def test_quiet_fallback_for_signal_less_harnesses() -> None:
    t = quiet_clock(AttentionTracker("codex", idle_quiet_ms=2_000))
    t.output(0.0)
    t.input(0.5, submit=True)
    t.output(1.0)
    t.input(2.5)  # the operator typing counts as activity
    assert t.state(3.0) is PaneState.WORKING
    assert t.state(4.4) is PaneState.WORKING
    assert t.state(4.5) is not PaneState.WORKING


def test_submit_clears_an_old_turn_signal() -> None:
    t = quiet_clock(AttentionTracker("claude", idle_quiet_ms=10_000))
    t.output(0.0)
    t.turn_signal(1.0)
    t.viewed(5.0)
    assert t.state(5.0) is PaneState.IDLE
    t.input(6.0, submit=True)
    t.output(6.5)
    assert t.state(7.5) is PaneState.WORKING  # a pause mid-turn is not idle


def test_done_unseen_until_viewed_at_live() -> None:
    t = quiet_clock(AttentionTracker("claude", idle_quiet_ms=10_000))
    t.output(0.0)
    t.input(1.0, submit=True)
    t.output(2.0)
    t.turn_signal(3.0)
    assert t.state(4.0) is PaneState.DONE_UNSEEN
    t.viewed(2.5)  # a look before the turn finished does not count
    assert t.state(4.0) is PaneState.DONE_UNSEEN
    t.viewed(4.0)
    assert t.state(4.1) is PaneState.IDLE
    # more output later, while nobody looks, settles into done-unseen again
    t.output(20.0)
    assert t.state(20.1) is PaneState.WORKING
    assert t.state(31.0) is PaneState.DONE_UNSEEN


def test_a_visible_pane_never_goes_done_unseen() -> None:
    t = quiet_clock(AttentionTracker("claude", idle_quiet_ms=1_000))
    t.set_visible(True, 0.0)
    t.output(0.0)
    t.input(1.0, submit=True)
    t.output(2.0)
    assert t.state(10.0) is PaneState.IDLE
    t.set_visible(False, 10.0)
    t.output(11.0)
    assert t.state(13.0) is PaneState.DONE_UNSEEN


def test_initial_prompt_counts_as_a_turn() -> None:
    t = quiet_clock(
        AttentionTracker("codex", idle_quiet_ms=1_000, initial_prompt=True, started_at=0.0)
    )
    t.output(0.5)
    assert t.state(2.0) is PaneState.DONE_UNSEEN


def test_needs_you_is_immediate_and_left_after_debounce() -> None:
    t = at_prompt(AttentionTracker("claude", idle_quiet_ms=10_000))
    t.output(0.0)
    t.screen(PROMPT, 1.0)
    assert t.state(1.0) is PaneState.NEEDS_YOU
    assert t.reason(1.0) == "needs permission"
    t.screen(CLEAR, 2.0)  # answered
    assert t.state(2.2) is PaneState.NEEDS_YOU  # held through a repaint
    t.screen(PROMPT, 2.3)  # flickered back: the debounce restarts
    t.screen(CLEAR, 2.4)
    assert t.state(2.8) is PaneState.NEEDS_YOU
    assert t.next_deadline(2.8) == pytest.approx(2.9)
    assert t.state(2.9) is PaneState.WORKING


def test_needs_you_outranks_a_busy_spinner_and_done() -> None:
    t = at_prompt(AttentionTracker("claude", idle_quiet_ms=1_000))
    t.output(0.0)
    t.input(0.1, submit=True)
    for i in range(10):
        t.output(0.2 + i * 0.1)  # spinner keeps painting under the question
    t.screen(screen("claude-question.txt"), 0.5)
    assert t.state(0.9) is PaneState.NEEDS_YOU
    assert t.state(60.0) is PaneState.NEEDS_YOU
    assert t.reason(60.0) == "needs an answer"


def test_exit_states() -> None:
    ok = at_prompt(AttentionTracker("shell"))
    ok.output(0.0)
    ok.exited(0, 1.0)
    assert ok.state(1.0) is PaneState.EXITED and ok.reason(1.0) is None
    assert ok.next_deadline(1.0) is None
    bad = at_prompt(AttentionTracker("shell"))
    bad.screen(["Overwrite? [y/N] "], 0.5)
    bad.exited(2, 1.0)
    assert bad.state(1.0) is PaneState.FAILED
    assert bad.reason(1.0) == "exit code 2"
    killed = at_prompt(AttentionTracker("shell"))
    killed.exited(-9, 1.0)
    assert killed.reason(1.0) == "killed by signal 9"


def test_poll_reports_each_transition_once() -> None:
    t = quiet_clock(AttentionTracker("claude", idle_quiet_ms=1_000))
    assert t.poll(0.0) is None
    t.output(0.0)
    t.input(0.0, submit=True)
    first = t.poll(0.1)
    assert first is not None and (first.old, first.new) == (PaneState.STARTING, PaneState.WORKING)
    assert t.poll(0.2) is None
    t.screen(PROMPT, 0.3)
    entered = t.poll(0.3)
    assert entered is not None and entered.new is PaneState.NEEDS_YOU
    assert entered.reason == "needs permission"
    assert t.poll(0.4) is None
    t.screen(CLEAR, 0.5)  # the dialog answered
    t.output(0.5)
    left = t.poll(1.0)
    assert left is not None and (left.old, left.new) == (PaneState.NEEDS_YOU, PaneState.WORKING)
    done = t.poll(1.6)
    assert done is not None and done.new is PaneState.DONE_UNSEEN


def test_next_deadline_drives_a_single_timer() -> None:
    t = quiet_clock(AttentionTracker("codex", idle_quiet_ms=3_000))
    assert t.next_deadline(0.0) is None  # nothing can change without an event
    t.output(1.0)
    deadline = t.next_deadline(1.0)
    assert deadline == pytest.approx(4.0)
    assert t.state(deadline - 0.001) is PaneState.WORKING
    assert t.state(deadline) is PaneState.IDLE
    assert t.next_deadline(deadline) is None


# --- what the dashboard feeds it --------------------------------------------------


def test_a_hidden_pane_is_not_just_seen() -> None:
    # The dashboard reports every pane's visibility on every refresh; for a hidden
    # pane that must not count as a look, or `◆` could never appear.
    t = at_prompt(
        AttentionTracker("demo", idle_quiet_ms=1_000, initial_prompt=True, started_at=0.0)
    )
    for step in range(40):
        now = step * 0.1
        if step == 2:
            t.output(now)
        t.set_visible(False, now)
    assert t.state(4.0) is PaneState.DONE_UNSEEN
    t.set_visible(True, 4.1)  # a completed frame showed it live
    assert t.state(4.2) is PaneState.IDLE
    t.set_visible(False, 5.0)  # hidden again: it was seen up to now
    assert t.state(5.1) is PaneState.IDLE


def test_a_signal_before_any_input_is_ready_not_done() -> None:
    # The demo (like a hook) says "at my prompt" after its banner: idle, no `◆`.
    t = at_prompt(AttentionTracker("demo", idle_quiet_ms=10_000))
    t.output(0.0)
    t.turn_signal(0.1)
    assert t.state(0.7) is PaneState.IDLE
    t.input(1.0, submit=True)
    t.output(1.1)
    t.turn_signal(2.0)
    assert t.state(2.6) is PaneState.DONE_UNSEEN


def test_time_in_state_is_exact() -> None:
    t = quiet_clock(AttentionTracker("claude", idle_quiet_ms=2_000, started_at=0.0))
    assert t.state_since(0.5) == 0.0  # starting since launch
    t.output(1.0)
    t.output(1.5)
    assert t.state_since(2.0) == 1.0  # working since the first output
    # Idle was reached at 3.5 (quiet), though nobody asked until 10.
    assert t.state(10.0) is PaneState.IDLE
    assert t.state_since(10.0) == pytest.approx(3.5)
    t.screen(PROMPT, 12.0)
    assert t.state_since(12.5) == 12.0
    t.screen(CLEAR, 13.0)
    t.output(13.0)
    # needs-you left after its debounce; working from then, not from the next look
    assert t.state(14.0) is PaneState.WORKING
    assert t.state_since(14.0) == pytest.approx(13.0 + attention.NEEDS_YOU_DEBOUNCE)
    t.exited(0, 20.0)
    assert t.state_since(25.0) == 20.0


def test_looking_at_a_done_pane_keeps_its_idle_clock() -> None:
    t = quiet_clock(AttentionTracker("claude", idle_quiet_ms=1_000))
    t.output(0.0)
    t.input(1.0, submit=True)
    t.output(2.0)
    assert t.state(5.0) is PaneState.DONE_UNSEEN
    t.viewed(5.0)
    assert t.state(6.0) is PaneState.IDLE
    assert t.state_since(6.0) == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("code", "state", "reason"),
    [
        (0, PaneState.EXITED, None),
        (3, PaneState.FAILED, "exit code 3"),
        (127, PaneState.FAILED, "exit code 127"),
        (143, PaneState.STOPPED, "killed by signal 15"),  # 128 + SIGTERM from the PTY
        (137, PaneState.STOPPED, "killed by signal 9"),
        (-9, PaneState.STOPPED, "killed by signal 9"),
    ],
)
def test_clean_exit_failure_and_stop_differ(
    code: int, state: PaneState, reason: str | None
) -> None:
    t = at_prompt(AttentionTracker("shell"))
    t.output(0.0)
    t.exited(code, 1.0)
    assert t.state(1.0) is state
    assert t.reason(1.0) == reason
    assert state in ENDED_STATES


def test_repaint_after_our_resize_is_not_work() -> None:
    f = attention.RepaintFilter()
    assert not f.is_repaint(0.0, 10, scrolled=False)  # no resize: output is output
    f.resized(1.0, 80, 24)
    assert f.is_repaint(1.2, 3000, scrolled=False)
    assert f.is_repaint(1.3, 3000, scrolled=False)
    assert not f.is_repaint(1.0 + attention.REPAINT_WINDOW + 0.1, 10, scrolled=False)
    f.resized(5.0, 80, 24)
    assert not f.is_repaint(5.1, 10, scrolled=True)  # new lines scrolled in: work
    assert not f.is_repaint(5.2, 10, scrolled=False)  # and what follows it
    f.resized(6.0, 10, 2)
    assert not f.is_repaint(6.1, 10 * 2 * attention.REPAINT_BYTES_PER_CELL + 5000, False)
    f.resized(7.0, 80, 24)
    f.input(7.1)  # the operator typed: the answer to it is work
    assert not f.is_repaint(7.2, 10, scrolled=False)
    f.resized(9.0, 80, 24)
    assert f.is_repaint(9.1, 10, scrolled=False, last_work=8.0)  # quiet before: a redraw
    f.resized(10.0, 80, 24)
    assert not f.is_repaint(10.1, 10, scrolled=False, last_work=9.9)  # it was drawing: work
    assert f.is_repaint(10.45, 10, scrolled=False, last_work=9.9)  # a redraw after it, quiet


def test_a_half_drawn_frame_of_our_redraw_changes_no_state() -> None:
    # qwen answers a width change by erasing its screen and drawing its history
    # back in pieces: a screen checked between the pieces is not its prompt.
    # Read as such, it ended the prompt's recognition, and the pane showed
    # Working (until the quiet period ran out) on a redraw zirv caused.
    qwen = (REAL / "qwen-0.15.10-input.txt").read_text().splitlines()
    half = qwen[:12]  # the banner drawn, the composer not yet
    t = AttentionTracker("qwen", idle_quiet_ms=10_000)
    t.output(0.0)
    t.screen(qwen, 0.0)
    assert t.state(1.0) is PaneState.IDLE
    t.screen(half, 3.0, redraw=True)
    assert t.state(3.1) is PaneState.IDLE
    t.screen(qwen, 3.2, redraw=True)
    assert t.state(3.3) is PaneState.IDLE  # its idle clock did not restart either
    assert t.state_since(3.3) == 0.5
    # The same half frame not from our redraw: the prompt is gone, it is work.
    t.screen(half, 4.0)
    assert t.state(4.1) is PaneState.WORKING
    # A dialog on screen stays needs-you through our redraw's half frames.
    d = AttentionTracker("claude")
    d.output(0.0)
    d.screen(PROMPT, 0.0)
    d.screen(CLEAR[:3], 1.0, redraw=True)
    assert d.state(2.0) is PaneState.NEEDS_YOU


# -- unknown is never idle ------------------------------------------------------------


def test_quiet_at_a_screen_that_is_not_the_prompt_is_unknown_not_idle() -> None:
    t = AttentionTracker("claude", idle_quiet_ms=1_000)
    t.output(0.0)
    t.screen(CLEAR, 0.0)
    assert t.state(0.5) is PaneState.WORKING
    assert t.state(2.0) is PaneState.UNKNOWN
    at_prompt(t, 2.5)
    assert t.state(2.5) is PaneState.IDLE


def test_a_turn_signal_establishes_idle_whatever_the_screen() -> None:
    t = AttentionTracker("claude", idle_quiet_ms=10_000)
    t.output(0.0)
    t.screen(CLEAR, 0.0)
    t.turn_signal(0.1)
    assert t.state(1.0) is PaneState.IDLE
    t.output(2.0)  # output after the signal: no longer vouched for
    assert t.state(13.0) is PaneState.UNKNOWN


def test_a_draft_begun_at_the_prompt_is_still_a_wait_for_the_operator() -> None:
    t = at_prompt(AttentionTracker("demo", idle_quiet_ms=1_000))
    t.output(0.0)
    t.input(0.1)
    t.output(0.11)  # the echo of the draft hides the empty composer
    t.screen(["demo> my dra"], 0.11, (12, 0))
    assert t.state(2.0) is PaneState.IDLE
    t.input(2.1, submit=True)
    t.output(2.2)
    t.screen(["Working on: my draft"], 2.2, (0, 1))
    assert t.state(4.0) is PaneState.UNKNOWN


def test_an_unknown_harness_is_never_idle_on_quiet_alone() -> None:
    t = AttentionTracker("droid", idle_quiet_ms=1_000)
    t.output(0.0)
    t.screen(["anything at all", "> "], 0.0, (2, 1))
    assert t.state(5.0) is PaneState.UNKNOWN


def test_the_recognised_prompt_is_idle_after_half_a_second_like_a_signal() -> None:
    t = at_prompt(AttentionTracker("demo", idle_quiet_ms=10_000))
    t.output(0.0)
    t.input(0.1, submit=True)
    t.output(0.2)
    t.screen(["demo> task", "Working on: task"], 0.2, (0, 1))
    assert t.state(5.0) is PaneState.WORKING
    t.output(5.0)
    t.screen(["Working on: task", "done", "demo>"], 5.0, (5, 2))
    assert t.state(5.3) is PaneState.WORKING
    assert t.next_deadline(5.3) == pytest.approx(5.5)
    assert t.state(5.6) in (PaneState.IDLE, PaneState.DONE_UNSEEN)


def test_typing_at_the_prompt_is_not_work() -> None:
    t = at_prompt(AttentionTracker("shell", idle_quiet_ms=10_000))
    t.set_visible(True, 0.0)
    t.output(0.0)
    assert t.state(1.0) is PaneState.IDLE
    for step in range(10):  # each key and its echo
        now = 1.0 + step * 0.2
        t.input(now)
        t.output(now + 0.01)
        t.screen(["$ echo typin"[: 3 + step]], now + 0.01, (3 + step, 0))
        assert t.state(now + 0.05) is PaneState.IDLE
    t.input(3.5, submit=True)
    t.output(3.6)
    t.screen(["$ echo typing", "typing"], 3.6, (0, 2))
    assert t.state(3.7) is PaneState.WORKING


OLD_PUBLIC = (
    "PATTERNS_VERSION SCAN_LINES NEEDS_YOU_DEBOUNCE SIGNAL_IDLE_DEBOUNCE NEEDS_PERMISSION "
    "NEEDS_APPROVAL NEEDS_ANSWER NEEDS_LOGIN ScreenPattern PATTERNS patterns_for match_needs_you "
    "detect_needs_you InputPrompt INPUT_PROMPTS at_input_prompt PaneState ENDED_STATES "
    "SIGNAL_EXIT_BASE MAX_SIGNAL killed_by ended_state Transition AttentionTracker REPAINT_WINDOW "
    "REPAINT_BYTES_PER_CELL REPAINT_SLACK RepaintFilter"
).split()


def test_every_name_of_the_single_module_is_still_exported_by_attention() -> None:
    assert sorted(attention.__all__) == sorted(OLD_PUBLIC)
    namespace: dict[str, object] = {}
    exec("from zirv_dash.attention.tracker import *", namespace)
    assert set(OLD_PUBLIC) <= set(namespace)


# -- output left unread while a key is on its way -------------------------------------


def test_quiet_while_its_output_is_unread_is_not_seen() -> None:
    """A hold (another pane's key on its way) leaves the child's output in the
    kernel: that quiet is ours, so no state is entered on it."""
    t = AttentionTracker("claude", idle_quiet_ms=300)
    t.output(0.0)
    t.screen(CLEAR, 0.0)
    t.hold(0.1)
    assert t.state(0.9) is PaneState.WORKING  # as it was when the hold began
    t.output(0.95)  # what it wrote meanwhile, read and parsed once the hold ended
    t.release(0.95)
    assert t.state(0.95) is PaneState.WORKING
    assert t.state_since(0.95) == 0.0  # one stretch of work, never broken
    assert t.state(1.3) is PaneState.UNKNOWN  # real quiet after it is seen again


def test_a_child_quiet_through_the_hold_was_quiet() -> None:
    t = AttentionTracker("claude", idle_quiet_ms=300)
    t.output(0.0)
    t.screen(CLEAR, 0.0)
    t.hold(0.1)
    t.release(0.9)  # nothing was waiting (or only a redraw): it really was quiet
    assert t.state(0.9) is PaneState.UNKNOWN
    assert t.state_since(0.9) == pytest.approx(0.3)  # from the quiet period's end


def test_a_release_without_a_hold_changes_nothing() -> None:
    t = at_prompt(AttentionTracker("demo", idle_quiet_ms=300))
    t.output(0.0)
    t.release(5.0)
    assert t.state(5.0) is PaneState.IDLE
