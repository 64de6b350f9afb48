"""Every terminal test also fails if the model swallowed an internal error.

``TerminalModel.feed`` never raises (a child's output must not crash the
dashboard); it logs the exception instead.  Here such a log is a failure, so
the fuzz tests prove the parser is robust rather than merely shielded.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(level=logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(autouse=True)
def no_swallowed_errors() -> Iterator[None]:
    handler = _Collect()
    logger = logging.getLogger("zirv_dash.terminal")
    logger.addHandler(handler)
    try:
        yield
    finally:
        logger.removeHandler(handler)
    if handler.records:
        rec = handler.records[0]
        detail = logging.Formatter().formatException(rec.exc_info) if rec.exc_info else ""
        pytest.fail(f"{len(handler.records)} internal error(s) in the model:\n{detail}")
