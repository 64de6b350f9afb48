"""A nudge that arrives while a native pane shows an approval dialog waits; it is
never taken as the answer, and lands at the next idle boundary after it."""

from __future__ import annotations

from pathlib import Path

from tests.apphelpers import dash_screen, make_app, wait_for
from widgets.native_approval import NativeApproval
from zirv_dash.mail.delivery import NudgeResult
from zirv_dash.runtime.native_pane import NativeSessionPane


async def test_a_nudge_1_during_an_approval_waits_then_lands(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / ".zirv").mkdir(parents=True)
    app = make_app(repo, agent="native")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: bool(screen.native_views))
        pane = screen.dash.panes[0]
        assert isinstance(pane, NativeSessionPane) and pane.session is not None
        session = pane.session
        view = screen.native_views[pane.short]
        await pilot.press(*"tidy up", "enter")
        dialog = view.query_one(NativeApproval)
        await wait_for(pilot, lambda: dialog.ready, timeout=20)
        assert screen.engine.mail.nudge(pane, "1") is NudgeResult.QUEUED
        for _ in range(10):
            await pilot.pause(0.05)
        # Still open, unanswered; the nudge has not become input or an answer.
        assert session.pending is not None
        assert not any(e.kind == "approval" for e in session.events)
        inputs = [str(e.data.get("text")) for e in session.events if e.kind == "input"]
        assert inputs == ["tidy up"]
        assert screen.engine.mail.delivery.nudges.get(pane.short)
        await pilot.press("1")  # the operator's own answer, on the dialog
        await wait_for(
            pilot,
            lambda: any(e.kind == "input" and "1" in str(e.data.get("text"))
                        for e in session.events if e.seq > answered_seq(session)),
            timeout=20,
        )  # fmt: skip
        approvals = [e for e in session.events if e.kind == "approval"]
        assert [e.data.get("answer") for e in approvals] == ["once"]
        landed = [e for e in session.events if e.kind == "input" and e.seq > approvals[0].seq]
        assert landed and "1" in str(landed[-1].data.get("text"))
        assert not screen.engine.mail.delivery.nudges.get(pane.short)


def answered_seq(session: object) -> int:
    events = getattr(session, "events", [])
    seqs = [e.seq for e in events if e.kind == "approval"]
    return seqs[0] if seqs else 10**9
