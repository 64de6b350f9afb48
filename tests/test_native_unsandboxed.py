"""Without bubblewrap a command is unsandboxed, and says so; the operator may refuse it.

"No bwrap" is made the way the code looks for it: a PATH without bwrap.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from widgets.native_approval import NativeApproval
from zirv_dash.config.errors import ConfigError
from zirv_dash.config.layers import load_settings
from zirv_dash.harnesses.native_kind import NATIVE_ADAPTER
from zirv_dash.native.demo_provider import DemoProvider
from zirv_dash.native.engine import NativeSession
from zirv_dash.native.journal import Journal
from zirv_dash.native.routes import demo_route
from zirv_dash.panes.spec import PaneSpec
from zirv_dash.runtime.native_pane import NativePaneKind


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    wd = tmp_path / "wd"
    wd.mkdir()
    return wd


@pytest.fixture
def no_bwrap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert shutil.which("bwrap") is None


async def until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    async with asyncio.timeout(timeout):
        while not check():
            await asyncio.sleep(0.01)


def session(tmp_path: Path, workdir: Path, require_sandbox: bool = False) -> NativeSession:
    journal = Journal(tmp_path / "s.sqlite")
    provider = DemoProvider(delay=0)
    return NativeSession(
        demo_route(), journal, workdir, provider=provider, require_sandbox=require_sandbox
    )


def status(s: NativeSession) -> str:
    s.submit("/status")
    return s.snapshot().transcript.items[-1].text


async def test_without_bwrap_the_approval_and_status_say_unsandboxed(
    no_bwrap: None, tmp_path: Path, workdir: Path
) -> None:
    s = session(tmp_path, workdir)
    assert "commands unsandboxed" in status(s)
    s.submit("!echo ran > ran.txt")
    await until(lambda: s.pending is not None)
    request = s.pending
    assert request is not None and request.note.startswith("unsandboxed")
    dialog = NativeApproval()
    dialog.request = request
    assert "⚠ unsandboxed" in str(dialog.render())
    s.answer(request.call_id, "once")
    await s.wait_idle()
    assert (workdir / "ran.txt").read_text() == "ran\n"  # it ran, having said so


async def test_require_sandbox_refuses_commands_when_there_is_none(
    no_bwrap: None, tmp_path: Path, workdir: Path
) -> None:
    s = session(tmp_path, workdir, require_sandbox=True)
    assert "commands refused (no sandbox)" in status(s)
    s.submit("!echo ran > ran.txt")
    await s.wait_idle()
    assert s.pending is None and not (workdir / "ran.txt").exists()
    tool = [i for i in s.snapshot().transcript.items if i.kind == "tool"][-1]
    assert tool.outcome is not None and tool.outcome.kind == "error"
    assert "require_sandbox = true" in tool.outcome.body


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed")
async def test_with_bwrap_the_approval_carries_no_warning(tmp_path: Path, workdir: Path) -> None:
    s = session(tmp_path, workdir, require_sandbox=True)
    assert "commands sandboxed (bwrap)" in status(s)
    s.submit("!true")
    await until(lambda: s.pending is not None)
    assert s.pending is not None and s.pending.note == ""
    s.answer(s.pending.call_id, "deny")
    await s.wait_idle()


def test_require_sandbox_is_the_operators_alone(tmp_path: Path, workdir: Path) -> None:
    from zirv_dash import paths

    operator = paths.operator_dir()
    operator.mkdir(parents=True, exist_ok=True)
    (operator / "ctx.toml").write_text("[native]\nrequire_sandbox = true\n")
    assert load_settings(workdir).native.require_sandbox is True
    (workdir / ".zirv").mkdir()
    (workdir / ".zirv" / "ctx.toml").write_text("[native]\nrequire_sandbox = false\n")
    with pytest.raises(ConfigError, match="require_sandbox"):
        load_settings(workdir)


async def test_the_pane_kind_passes_the_setting_to_its_sessions(
    no_bwrap: None, workdir: Path
) -> None:
    spec = PaneSpec(agent="native", adapter=NATIVE_ADAPTER, argv=[], cwd=str(workdir))
    pane = NativePaneKind(require_sandbox=True).new_pane(spec, 80, 24)
    assert pane.start({}) and pane.session is not None
    assert pane.session.workdir.require_sandbox and not pane.session.workdir.sandbox
    await pane.close_session()
