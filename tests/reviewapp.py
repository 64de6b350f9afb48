"""A bare App hosting the diff review overlay over a real repository."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from textual.app import App
from textual.pilot import Pilot

from screens.diff_review import DiffReviewScreen
from screens.review_target import CommentRoute, ReviewTarget
from widgets.diff_view import DiffView


class ReviewApp(App[None]):
    def __init__(
        self, target: ReviewTarget, route: CommentRoute | None = None, exit_on_close: bool = False
    ) -> None:
        super().__init__()
        self.target = target
        self.route = route
        self.exit_on_close = exit_on_close

    def on_mount(self) -> None:
        self.push_screen(DiffReviewScreen(self.target, self.route), self._overlay_closed)

    def _overlay_closed(self, _: None) -> None:
        if self.exit_on_close:
            self.exit()

    @property
    def review(self) -> DiffReviewScreen:
        screen = self.screen
        assert isinstance(screen, DiffReviewScreen)
        return screen


async def until(pilot: Pilot[Any], check: Callable[[], bool], timeout: float = 20.0) -> None:
    """Let the app run until `check()` holds (git runs in a worker thread)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not reached in time")
        await pilot.pause(0.02)


def ready(app: ReviewApp) -> bool:
    """The overlay has its diff and the shown file's syntax colours."""
    if not isinstance(app.screen, DiffReviewScreen):
        return False
    review = app.review
    view = review.query_one(DiffView)
    return not review.loading and review.result is not None and view.highlighted


async def loaded(pilot: Pilot[Any]) -> None:
    app = pilot.app
    assert isinstance(app, ReviewApp)
    await until(pilot, lambda: ready(app))
    await pilot.pause()


def main() -> None:
    """`python -m tests.reviewapp REPO`: the overlay alone, for end-to-end tests."""
    import sys
    from pathlib import Path

    ReviewApp(ReviewTarget(Path(sys.argv[1]), "HEAD", "pane e2e"), exit_on_close=True).run()


if __name__ == "__main__":
    main()
