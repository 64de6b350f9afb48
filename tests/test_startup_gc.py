"""`zirv chat` pauses the garbage collector while the dashboard starts (its passes
over the freshly imported UI cost ~0.1 s of CPU before the first frame)
and every path turns it back on: the mounted dashboard, the single session, an
early refusal."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.apphelpers import dash_screen, make_app, wait_for
from zirv_dash.cli import chat
from zirv_dash.config.layers import ConfigError

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    """Whatever a test does, the suite goes on with the collector running."""
    yield
    gc.enable()


def test_chat_starts_with_the_collector_paused_and_a_refusal_turns_it_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: list[bool] = []

    def refuse(repo: Path | None = None, flags: object = None) -> None:
        seen.append(gc.isenabled())  # the configuration is the first thing loaded
        raise ConfigError("refused for the test")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(chat, "load_settings", refuse)
    assert chat.main(["--allow-nested"]) == 2
    assert seen == [False]
    assert gc.isenabled()


def test_the_single_session_runs_with_the_collector_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    seen: list[bool] = []

    def wrapped(argv: list[str], env: dict[str, str], cwd: str, notice: str) -> int:
        seen.append(gc.isenabled())
        return 0

    import zirv_dash.panes.wrap

    gc.disable()  # as `main` leaves it for the start-up
    monkeypatch.setattr(zirv_dash.panes.wrap, "run_wrapped", wrapped)
    assert chat.run_single("shell", None, tmp_path, "single session for the test") == 0
    assert seen == [True]


async def test_the_mounted_dashboard_turns_the_collector_back_on(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SHELL", "/bin/sh")
    app = make_app(tmp_path)
    gc.disable()  # as `zirv chat` leaves it until the dashboard is mounted
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: len(dash_screen(app).dash.panes) == 1)
        assert gc.isenabled()
