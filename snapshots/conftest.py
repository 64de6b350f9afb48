"""Snapshot tests share the per-test isolation of the main suite, and never see
the machine's vendor CLIs: a harness list must look the same everywhere."""

from pathlib import Path

import pytest

from tests.conftest import isolated_state

__all__ = ["isolated_state", "no_vendor_clis", "snap_home"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Pictures are taken at a settled moment; a second worker competing for the
    two cores makes "settled" arrive late and the wait long: they run serially."""
    for item in items:
        if "snapshots" in item.path.parts:
            item.add_marker(pytest.mark.serial)


@pytest.fixture(autouse=True)
def snap_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME for each snapshot: the repo the dashboards open lives under
    it, so the chrome shows it as `~/…` and no SVG embeds a temp-dir path."""
    home = (tmp_path / "home").resolve()
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def no_vendor_clis(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "no-vendor-bin"
    empty.mkdir(exist_ok=True)
    monkeypatch.setenv("PATH", str(empty))
