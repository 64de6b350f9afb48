"""Mail or a nudge that arrives while a native pane shows an approval dialog joins
the session's queue, saved at once (a kill keeps it): it is never taken as the
answer, and lands at the next idle boundary after the approval is answered."""

from __future__ import annotations

from pathlib import Path

from tests.apphelpers import dash_screen, make_app, wait_for
from widgets.native_approval import NativeApproval
from zirv_dash.mail.delivery import NudgeResult
from zirv_dash.native.drafts import load_draft
from zirv_dash.runtime.native_pane import NativeSessionPane


async def test_a_nudge_1_during_an_approval_waits_durably_then_lands(tmp_path: Path) -> None:
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
        assert not pane.at_input_prompt() and pane.queues_input_durably()
        assert screen.engine.mail.nudge(pane, "1") is NudgeResult.DELIVERED
        for _ in range(10):
            await pilot.pause(0.05)
        # Still open and unanswered; the nudge waits in the session's queue, on disk.
        assert session.pending is not None and dialog.ready
        assert not any(e.kind == "approval" for e in session.events)
        inputs = [str(e.data.get("text")) for e in session.events if e.kind == "input"]
        assert inputs == ["tidy up"]
        [held] = session.queued
        assert held.endswith("1")
        assert [q.text for q in load_draft(session.name).queued] == [held]
        await pilot.press("1")  # the operator's own answer, on the dialog
        await wait_for(pilot, lambda: any(
            e.kind == "input" and str(e.data.get("text")) == held for e in session.events
        ), timeout=20)  # fmt: skip
        approvals = [e for e in session.events if e.kind == "approval"]
        assert [e.data.get("answer") for e in approvals] == ["once"]
        landed = next(
            e for e in session.events if e.kind == "input" and str(e.data.get("text")) == held
        )
        assert landed.seq > approvals[0].seq
        # Sent: the saved queue follows (a restart would not send it twice).
        await wait_for(pilot, lambda: load_draft(session.name).queued == [])
