"""Snapshot tests share the per-test isolation of the main suite."""

from tests.conftest import isolated_state

__all__ = ["isolated_state"]
