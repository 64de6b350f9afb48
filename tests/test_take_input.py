"""Keys from the driver go straight to the key gate (`ZirvApp.take_input`) once
the dashboard is up, and through the message queue before that and behind
anything still queued: in the order they were typed, either way."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual import events

from tests.apphelpers import dash_screen, make_app, screen_text, shell_at_prompt, wait_for
from tests.intakehelpers import plain_shell_env

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True)
def plain_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    plain_shell_env(monkeypatch)


def key(char: str) -> events.Key:
    return events.Key(char, char)


async def test_a_key_behind_queued_keys_waits_its_turn(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = await shell_at_prompt(pilot, app)
        assert app.input_ready  # the dashboard is mounted
        offered: list[str] = []
        offer = app.key_gate.offer

        def noting(event: events.Key | events.Paste) -> bool:
            offered.append(event.key if isinstance(event, events.Key) else "paste")
            return offer(event)

        app.key_gate.offer = noting  # type: ignore[method-assign]
        await wait_for(pilot, lambda: app._message_queue.empty())  # noqa: SLF001
        app.take_input(key("a"))  # nothing queued: straight to the gate
        assert offered == ["a"]
        app.input_ready = False
        app.take_input(key("b"))  # as at start: through the queue
        app.input_ready = True
        app.take_input(key("c"))  # "b" is still queued: "c" goes behind it
        assert offered == ["a"]
        await wait_for(pilot, lambda: offered == ["a", "b", "c"])
        await wait_for(pilot, lambda: "$ abc" in screen_text(pane))


async def test_nothing_is_taken_once_the_app_is_closing(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        dash = dash_screen(app).dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        offered: list[object] = []
        app.key_gate.offer = offered.append  # type: ignore[method-assign,assignment]
        app._closing = True  # noqa: SLF001 - what App.exit sets first
        try:
            app.take_input(key("z"))
        finally:
            app._closing = False  # noqa: SLF001
        assert offered == []
