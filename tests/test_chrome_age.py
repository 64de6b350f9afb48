"""The focused pane's age in the chrome: seconds only while a spinner redraws
anyway; with nothing working it shows minutes, so nothing redraws each second."""

from __future__ import annotations

from pathlib import Path

from tests.apphelpers import dash_screen, make_app, wait_for
from widgets.pane_header import PaneHeader
from zirv_dash.attention.states import PaneState
from zirv_dash.textfmt import coarse_age_text, next_coarse_age_change

QUICK = {"dash": {"idle_quiet_ms": 300}}


def test_coarse_age_has_no_seconds() -> None:
    assert coarse_age_text(0) == "<1m"
    assert coarse_age_text(59.9) == "<1m"
    assert coarse_age_text(61) == "1m"
    assert coarse_age_text(7200) == "2h"
    assert next_coarse_age_change(10) == 50
    assert next_coarse_age_change(90) == 30


async def test_idle_dashboard_age_redraws_by_the_minute(tmp_path: Path) -> None:
    app = make_app(tmp_path, agent="shell", flags=QUICK)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        await wait_for(pilot, lambda: len(screen.dash.panes) == 1)
        pane = screen.dash.panes[0]
        await wait_for(pilot, lambda: pane.state() is PaneState.IDLE, timeout=15)
        screen.chrome.refresh()
        assert screen.query_one(PaneHeader).facts.age == "<1m"
