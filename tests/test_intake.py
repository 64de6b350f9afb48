"""The dashboard side of delegation (zirv_dash.intake) against a real Dashboard.

Real children on real PTYs (`demo`, `shell`), real channels in the test's own
state dir; no UI.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.intakehelpers import (
    ask,
    close,
    drive,
    git_repo,
    live_dashboard,
    plain_shell_env,
    private_channel,
    request,
)
from zirv_dash import paths, spawn
from zirv_dash.config.layers import load_settings
from zirv_dash.dash import roster
from zirv_dash.dash.dashboard import Dashboard
from zirv_dash.intake.core import ENDED_ROWS_MAX, Intake
from zirv_dash.intake.menu import (
    dashboard_sections,
    format_sections,
    inspect_sections,
    menu_entries,
    menu_letters,
)
from zirv_dash.intake.report import screen_tail
from zirv_dash.mail import mailbox as mail
from zirv_dash.panes import registry
from zirv_dash.panes.pane import Pane

pytestmark = pytest.mark.timeout(60)

# Other test modules still import these from here; they live in tests/intakehelpers.py.
__all__ = ["close", "drive", "format_sections"]


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    plain_shell_env(monkeypatch)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return git_repo(tmp_path)


@pytest.fixture
def setup(repo: Path) -> Iterator[tuple[Dashboard, Intake]]:
    with live_dashboard(repo) as both:
        yield both


def ended(pane: Pane) -> Callable[[], bool]:
    return lambda: not pane.alive


# --- channel ---------------------------------------------------------------------------


def test_channel_named_after_orchestrator_and_private_per_pane(
    setup: tuple[Dashboard, Intake], isolated_state: Path
) -> None:
    dash, intake = setup
    orch = dash.panes[0]
    assert intake.channel is not None
    root = intake.channel.root
    assert root.name.startswith(f"{orch.short}-")
    assert spawn.read_owner_pid(root) == os.getpid()
    assert (root / "requests").is_dir()
    [own] = [name for name, o in intake.owners.items() if o.short == orch.short]
    assert (root / own).is_dir()
    # The child really carries its own channel.
    orch.send(b"echo CH=$ZIRV_CTX_DASH_REQUESTS\r")
    drive(dash, intake, lambda: f"CH={root / own}" in "".join(orch.model_view.lines()))


def test_stale_token_dirs_swept_at_start(repo: Path, isolated_state: Path) -> None:
    dead = spawn.dash_root(isolated_state) / "deadbeef-0123456789abcdef"
    (dead / "requests").mkdir(parents=True)
    (dead / "owner.pid").write_text("999999999\n")
    dash = Dashboard(load_settings(repo), repo, manage_state=True)
    Intake(dash).start()
    assert not dead.exists()


def test_quit_writes_roster_and_removes_token_dir(
    setup: tuple[Dashboard, Intake], isolated_state: Path
) -> None:
    dash, intake = setup
    worker = dash.spawn("demo", prompt="work", focus=False)
    intake.deferred.append(roster.RosterPane("demo", "ffffffff-1111", short="ffffffff"))
    intake.deferred.append(roster.RosterPane("demo", worker.session_id, short=worker.short))
    assert intake.channel is not None
    root = intake.channel.root
    intake.on_quit()
    assert not root.exists()
    doc = json.loads(roster.roster_path(isolated_state, dash.slug).read_text())
    sessions = [p["session_id"] for p in doc["panes"]]
    assert sessions == [dash.panes[0].session_id, worker.session_id, "ffffffff-1111"]
    assert doc["panes"][0]["role"] == "orchestrator" and doc["panes"][0]["interactive"]


# --- requests ----------------------------------------------------------------------------


def test_concurrent_requesters_each_get_their_own_pane(
    setup: tuple[Dashboard, Intake], repo: Path
) -> None:
    dash, intake = setup
    assert intake.channel is not None
    shared = intake.channel.requests
    acks: list[spawn.AckWait] = []
    lock = threading.Lock()

    def requester(i: int) -> None:
        path = spawn.write_request(shared, request(repo, prompt=f"task {i}"))
        got = spawn.wait_for_ack(path, timeout=8)
        with lock:
            acks.append(got)

    threads = [threading.Thread(target=requester, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    drive(dash, intake, lambda: len(acks) == 5)
    for t in threads:
        t.join()
    shorts = {a.ack.short for a in acks if a.ack is not None and a.ack.ok}
    assert len(shorts) == 5
    assert shorts == {p.short for p in dash.panes[1:]}
    for pane in dash.panes[1:]:
        assert pane.spec.headless  # file drops launch headless
        assert intake.kept[pane.short].request.interactive is False
    assert not list(shared.iterdir())  # claims released, acks collected


def test_hostile_requests_are_refused_with_reasons(
    setup: tuple[Dashboard, Intake], repo: Path, tmp_path: Path
) -> None:
    dash, intake = setup
    assert intake.channel is not None
    shared = intake.channel.requests
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    cases: list[tuple[object, str]] = [
        (request(repo, prompt="--dangerously-skip"), "argv injection guard"),
        (request(repo, cwd=str(outside)), "only spawns panes in its own repo"),
        (request(repo, workdir="/"), "outside the dashboard's workdir roots"),
        (request(repo, role="orchestrator"), "never a full orchestrator seat"),
        (request(repo, role="sub-orchestrator"), "shared channel cannot claim"),
        (request(repo, agent="nope"), "unknown adapter"),
        (request(repo, model="--yolo"), "looks like a flag"),
        (request(repo, prompt=7), "must be a string"),
        ([1, 2], "must be a JSON object"),
    ]
    for body, reason in cases:
        ack = ask(dash, intake, shared, body)
        assert ack is not None and not ack.ok, body
        assert reason in (ack.reason or ""), (reason, ack.reason)
    ack = ask(dash, intake, shared, None, raw=b"{not json")
    assert ack is not None and "malformed JSON" in (ack.reason or "")
    # A kill on the shared channel gets no ack, only an error-log line.
    assert ask(dash, intake, shared, {"kill": dash.panes[0].short}) is None
    assert any("shared channel cannot kill" in e.text for e in dash.errors.entries)
    assert len(dash.panes) == 1 and dash.panes[0].alive


def test_widening_fields_are_stripped(setup: tuple[Dashboard, Intake], repo: Path) -> None:
    dash, intake = setup
    assert intake.channel is not None
    body = request(repo, force=True, interactive=True, flags=["--dangerously-skip-permissions"])
    ack = ask(dash, intake, intake.channel.requests, body)
    assert ack is not None and ack.ok
    pane = dash.pane_by_short(ack.short or "")
    assert pane is not None and pane.spec.headless
    assert "--dangerously-skip-permissions" not in pane.spec.argv
    kept = intake.kept[pane.short].request
    assert kept.force is False and kept.flags == [] and kept.interactive is False


def test_pane_cap_refuses(repo: Path, isolated_state: Path) -> None:
    with live_dashboard(repo, flags={"dash": {"max_panes": 1}}) as (dash, intake):
        assert intake.channel is not None
        ack = ask(dash, intake, intake.channel.requests, request(repo))
        assert ack is not None and "pane limit reached" in (ack.reason or "")


def test_kill_only_own_children_from_own_channel(
    setup: tuple[Dashboard, Intake], repo: Path
) -> None:
    dash, intake = setup
    orch = dash.panes[0]
    mine = private_channel(intake, orch.short)
    ack = ask(dash, intake, mine, request(repo))
    assert ack is not None and ack.ok and ack.short
    child = dash.pane_by_short(ack.short)
    assert child is not None and intake.parents[child.short] == orch.short
    assert child.spec.requested_by == orch.session_id  # ZIRV_CTX_PARENT_SESSION
    # The child (a worker) may not stop its parent, nor delegate onward.
    theirs = private_channel(intake, child.short)
    refused = ask(dash, intake, theirs, {"kill": orch.short})
    assert refused is not None and "may only stop itself" in (refused.reason or "")
    onward = ask(dash, intake, theirs, request(repo))
    assert onward is not None and "may not delegate onward" in (onward.reason or "")
    killed = ask(dash, intake, mine, {"kill": child.short})
    assert killed is not None and killed.ok and killed.short == child.short
    drive(dash, intake, lambda: not child.alive)
    assert orch.alive
    assert child.exit_code == 143  # SIGTERM, like upstream EXIT_KILLED


def test_stop_ladder_escalates(setup: tuple[Dashboard, Intake]) -> None:
    dash, intake = setup
    pane = dash.spawn("shell", focus=False)  # no quit sequence: straight to the kill ladder
    drive(dash, intake, lambda: "$" in "".join(pane.model_view.lines()))
    pane.send(b"trap '' TERM HUP\r")
    drive(dash, intake, lambda: "".join(pane.model_view.lines()).count("$") >= 2)
    intake.stop_gracefully(pane)
    drive(dash, intake, lambda: not pane.alive, timeout=8)
    assert pane.exit_code == 137


# --- report back ----------------------------------------------------------------------


def mails_to(dash: Dashboard, short: str) -> list[mail.Message]:
    return [m for m in mail.list_messages(dash.slug) if m.to_short == short]


def test_report_back_once_when_a_delegated_pane_ends(
    setup: tuple[Dashboard, Intake], repo: Path
) -> None:
    dash, intake = setup
    orch = dash.panes[0]
    ack = ask(dash, intake, private_channel(intake, orch.short), request(repo, prompt="fix it"))
    assert ack is not None and ack.short
    pane = dash.pane_by_short(ack.short)
    assert pane is not None
    drive(dash, intake, lambda: "Done." in "".join(pane.model_view.lines()))
    pane.send(b"/fail\r")
    drive(dash, intake, lambda: not pane.alive and pane in [r.pane for r in dash.ended])
    [message] = mails_to(dash, orch.short)
    assert message.from_agent == "zirv"
    assert message.body.startswith(f"pane {pane.short} (demo, {repo}) ")
    assert "demo failure requested" in message.body
    intake.report(pane, ended=True)
    assert len(mails_to(dash, orch.short)) == 1


def test_no_report_when_the_worker_already_mailed(
    setup: tuple[Dashboard, Intake], repo: Path
) -> None:
    dash, intake = setup
    orch = dash.panes[0]
    ack = ask(dash, intake, private_channel(intake, orch.short), request(repo, agent="shell"))
    assert ack is not None and ack.short
    pane = dash.pane_by_short(ack.short)
    assert pane is not None
    mail.store(dash.slug, "done: all good", from_session=pane.session_id, from_agent="shell",
               to_session=orch.session_id)  # fmt: skip
    pane.send(b"exit 0\r")
    drive(dash, intake, lambda: not pane.alive and pane.short in intake.reported)
    assert [m.body.strip() for m in mails_to(dash, orch.short)] == ["done: all good"]


def test_settled_report(repo: Path, isolated_state: Path) -> None:
    with live_dashboard(repo, flags={"dash": {"idle_quiet_ms": 200}}) as (dash, intake):
        orch = dash.panes[0]
        ack = ask(dash, intake, private_channel(intake, orch.short), request(repo))
        assert ack is not None and ack.short
        drive(dash, intake, lambda: bool(mails_to(dash, orch.short)))
        assert "settled with unread output" in mails_to(dash, orch.short)[0].body


def test_screen_tail_is_capped(setup: tuple[Dashboard, Intake]) -> None:
    dash, _ = setup
    pane = dash.panes[0]
    pane.model_view.feed(("x" * 79 + "\r\n").encode() * 30)
    tail = screen_tail(pane, lines=20, cap=300)
    assert len(tail.encode()) <= 300 and tail.endswith("x")


# --- ended rows ------------------------------------------------------------------------


def test_ended_rows_are_capped_dismissed_and_relaunched(
    setup: tuple[Dashboard, Intake], repo: Path
) -> None:
    dash, intake = setup
    assert intake.channel is not None
    dash.settings.dash.max_panes = 12
    shorts = []
    for i in range(ENDED_ROWS_MAX + 1):
        ack = ask(dash, intake, intake.channel.requests, request(repo, agent="shell", name=f"w{i}"))
        assert ack is not None and ack.short
        shorts.append(ack.short)
    ended_order: list[str] = []
    for short in shorts:  # one at a time, so the end order is known
        pane = dash.pane_by_short(short)
        assert pane is not None
        pane.send(b"exit 3\r")
        drive(dash, intake, ended(pane))
        ended_order.append(short)
    assert len(dash.ended) == ENDED_ROWS_MAX and len(dash.live_panes) == 1
    assert [r.short for r in dash.ended] == ended_order[1:]  # oldest dropped first
    assert dash.pane_by_short(ended_order[0]) is None
    assert dash.ended[0].title == f"w{shorts.index(ended_order[1])}"
    first = dash.ended[0].pane
    menu = {e.label: e for e in menu_entries(intake, first)}
    assert menu["retry"].enabled and menu["restore"].enabled and menu["dismiss"].enabled
    assert menu["stop"].disabled == "this pane has ended"
    new = intake.relaunch(first)
    assert new is not None and new.alive and new.short != first.short
    assert dash.current_notice() == f"restored {first.short} as {new.short}"
    assert first not in dash.panes and new.short in intake.kept
    second = dash.ended[0].pane
    assert intake.dismiss(second)
    assert second not in dash.panes and dash.current_notice() == f"dismissed {second.short}"
    # Re-validation: once the pane cap is reached, a retry is refused and the row kept.
    dash.settings.dash.max_panes = len(dash.live_panes)
    third = dash.ended[0].pane
    assert intake.relaunch(third) is None
    assert "pane limit reached" in dash.errors.entries[0].text
    assert dash.errors.entries[0].text.startswith(f"restore {third.short}: ")
    assert third in dash.panes


def test_menu_for_live_orchestrator_and_letters(setup: tuple[Dashboard, Intake]) -> None:
    dash, intake = setup
    orch = dash.panes[0]
    entries = menu_entries(intake, orch)
    assert [(e.letter, e.label) for e in entries] == [
        ("i", "inspect"), ("f", "focus"), ("n", "nudge"), ("m", "mail"), ("h", "handover"),
        ("s", "stop"), ("r", "restore"), ("o", "open worktree"), ("e", "evidence"),
        ("t", "retry"), ("d", "dismiss"),
    ]  # fmt: skip
    reasons = {e.label: e.disabled for e in entries}
    assert reasons["restore"] == "still running" and reasons["retry"] == "still running"
    assert reasons["dismiss"] == "only a finished row can be dismissed"
    assert reasons["focus"] is None and reasons["stop"] is None
    board = {e.label: e.disabled for e in menu_entries(intake, None)}
    assert board["inspect"] is None and board["mail"] is None
    assert board["stop"] == "the dashboard, not a session"
    assert menu_letters(["stop", "start", "ss"]) == [
        "s",
        "t",
        "",
    ]


def test_inspector_sections(setup: tuple[Dashboard, Intake]) -> None:
    dash, intake = setup
    orch = dash.panes[0]
    dash.error(f"something about {orch.short}")
    lines = format_sections(inspect_sections(intake, orch))
    assert lines[0] == "identity"
    assert f"{'short':<12}{orch.short}" in lines
    assert f"{'harness':<12}shell" in lines and f"{'role':<12}orchestrator" in lines
    assert "status" in lines and "errors" in lines
    assert f"{'error':<12}something about {orch.short}" in lines
    board = format_sections(dashboard_sections(intake))
    assert f"{'short':<12}{orch.short}" in board and f"{'live':<12}1" in board


# --- restore roster ---------------------------------------------------------------------


def test_restore_offer_drops_orchestrator_and_keeps_live(
    setup: tuple[Dashboard, Intake], isolated_state: Path
) -> None:
    dash, intake = setup
    live = dash.panes[0]  # its registry record is live
    gone = roster.RosterPane(
        "demo",
        "abcdef12-0000-4000-8000-00000000000a",
        short="abcdef12",
        title="wrk demo",
        report_to=live.short,
        settled_mail_sent=True,
    )
    entries = [
        roster.RosterPane("shell", "00000000-orch", role="orchestrator", short="00000000"),
        roster.RosterPane("shell", live.session_id, short=live.short, title="still here"),
        gone,
    ]
    roster.write_roster(isolated_state, dash.slug, entries)
    offer = intake.take_restore_offer()
    assert [e.short for e in offer] == ["abcdef12"]
    assert "not restoring still here" in (dash.current_notice() or "")
    assert roster.consumed_path(isolated_state, dash.slug).exists()
    [pane] = intake.restore(offer)
    assert pane.short == "abcdef12" and pane.session_id == gone.session_id
    assert pane.spec.headless and roster.RESTART_PROMPT in pane.spec.argv
    assert intake.report_to[pane.short] == live.short and pane.short in intake.reported
    assert registry.record_path("abcdef12").exists()
    # The live entry is carried into the next roster; the restored pane too.
    shorts = [e.short for e in intake.roster_entries()]
    assert shorts.count(live.short) == 2 and "abcdef12" in shorts  # de-duplicated on write


def test_restore_over_the_cap_defers_with_error(repo: Path, isolated_state: Path) -> None:
    with live_dashboard(repo, flags={"dash": {"max_panes": 2}}) as (dash, intake):
        entries = [
            roster.RosterPane("shell", f"{i}{i}{i}{i}{i}{i}{i}{i}-x", short=f"{i}" * 8)
            for i in range(1, 4)
        ]
        restored = intake.restore(entries)
        assert [p.short for p in restored] == ["11111111"]
        assert dash.errors.entries[0].text == (
            "restore: pane limit reached (dash.max_panes = 2); 2 session(s) not restored"
        )
        assert [e.short for e in intake.deferred] == ["22222222", "33333333"]
        intake.skip_restore()


def test_restore_respects_the_adapter_gate(repo: Path, isolated_state: Path) -> None:
    from zirv_dash.config.layers import AdapterGate

    gate = AdapterGate(disabled={"demo": "disabled in .zirv/.settings.toml"})
    dash = Dashboard(load_settings(repo), repo, gate=gate)
    intake = Intake(dash)
    intake.start()
    entry = roster.RosterPane("demo", "12345678-aaaa", short="12345678")
    assert intake.restore([entry]) == []
    assert dash.errors.entries[0].text.startswith("restore 12345678: adapter demo is")
    assert intake.deferred == [entry]


def test_dialog_panes_keep_a_request(setup: tuple[Dashboard, Intake]) -> None:
    dash, intake = setup
    pane: Pane = dash.spawn("demo", prompt="from the dialog", focus=False)
    kept = intake.kept[pane.short]
    assert kept.request.prompt == "from the dialog" and kept.request.interactive
    assert kept.request.requested_by == dash.short
    assert paths.short_id(pane.session_id) == pane.short


def test_timeout_secs_stops_a_delegated_pane(setup: tuple[Dashboard, Intake], repo: Path) -> None:
    dash, intake = setup
    assert intake.channel is not None
    ack = ask(dash, intake, intake.channel.requests, request(repo, timeout_secs=1))
    assert ack is not None and ack.short
    pane = dash.pane_by_short(ack.short)
    assert pane is not None
    drive(dash, intake, lambda: not pane.alive, timeout=8)
    assert any("outran its --timeout-secs" in e.text for e in dash.errors.entries)


def test_a_timed_out_pane_at_a_dialog_is_stopped_without_typing_into_it(
    setup: tuple[Dashboard, Intake], repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--timeout-secs` and kill requests stop through the one ladder: the quit
    command would answer a pre-selected "Yes, I trust this folder" with its Enter."""
    fake_cli = Path(__file__).parent / "data" / "fake_trust_cli.py"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(f'#!/bin/sh\nexec {sys.executable} {fake_cli} "$@"\n')
    (bin_dir / "claude").chmod(0o755)
    trust = tmp_path / "trusted.json"
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    monkeypatch.setenv("FAKE_TRUST_FILE", str(trust))
    dash, intake = setup
    assert intake.channel is not None
    ack = ask(dash, intake, intake.channel.requests, request(repo, agent="claude", timeout_secs=1))
    assert ack is not None and ack.ok, ack
    pane = dash.panes[-1]
    drive(dash, intake, lambda: "Yes, I trust this folder" in "\n".join(pane.model_view.lines()))
    assert not pane.at_input_prompt()
    drive(dash, intake, ended(pane), timeout=20)
    assert not trust.exists(), "the stop answered the trust dialog"


FORMER_INTAKE_NAMES = """
CLEAN_EXIT ENDED ENDED_ROWS_MAX Intake Kept MENU_LABELS MenuEntry NOT_FINISHED NOT_OURS NO_CHANNEL
NO_CWD NO_REQUEST Outcome Owner PRUNE_EVERY Planned REPORT_TAIL_BYTES REPORT_TAIL_LINES
STILL_RUNNING STOP_GRACE Section Spawner SweepJob THE_DASHBOARD dashboard_sections
disabled_reason_restore format_sections inspect_sections menu_entries menu_letters report_body
screen_tail
""".split()
INTAKE_MODULES = "core stopping sweep menu reasons report restore rows launching views".split()


def test_every_former_public_name_is_still_defined() -> None:
    """The package face was slimmed: each name it exported lives on in an intake module."""
    import importlib

    modules = [importlib.import_module(f"zirv_dash.intake.{name}") for name in INTAKE_MODULES]
    missing = [n for n in FORMER_INTAKE_NAMES if not any(hasattr(m, n) for m in modules)]
    assert missing == []
