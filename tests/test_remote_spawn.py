"""`Ctrl+A s` offers the operator's remote hosts: spawning on one starts the
harness in that host's runtime over the link, and the pane shows through the
link. The dashboard in process (Textual's pilot), a real sshd, a real remote
runtime (tests/sshrig.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from textual.widgets import Checkbox, Input, OptionList

from screens.spawn import REMOTE_LIMITS, SpawnScreen
from tests.apphelpers import dash_screen, make_app, wait_for
from tests.sshrig import ALIAS, ZIRV, SshServer, needs_sshd
from tests.test_dialogs import open_screen
from tests.test_remote_faults import remote, remote_zirv, sshd  # noqa: F401
from zirv_dash.remote.engine_links import links_of

pytestmark = [needs_sshd, pytest.mark.timeout(120)]


def remote_sessions(server: SshServer) -> list[dict[str, object]]:
    done = remote_zirv(server, "ctx", "api", "call", "session.list")
    assert done.returncode == 0, done.stderr
    sessions: list[dict[str, object]] = json.loads(done.stdout)["sessions"]
    return sessions


async def test_spawn_on_a_host_runs_it_there_and_shows_it_here(
    tmp_path: Path,
    remote: SshServer,  # noqa: F811
) -> None:
    added = subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "remote", "add", "box", ALIAS]
        + ["--ssh-config", str(remote.config), "--zirv", ZIRV],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert added.returncode == 0, added.stderr
    app = make_app(tmp_path, agent="shell", manage_state=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = dash_screen(app)
        dash = screen.dash
        await wait_for(pilot, lambda: len(dash.panes) == 1)
        links = links_of(screen.engine)
        assert links is not None
        await wait_for(pilot, lambda: links.links[0].connected, timeout=40)
        spawn = await open_screen(pilot, app, SpawnScreen, "ctrl+a", "s")
        assert spawn.hosts == ["box"]
        harness = spawn.query_one("#harness", OptionList)
        ids = [harness.get_option_at_index(i).id for i in range(harness.option_count)]
        harness.highlighted = ids.index("demo")
        host = spawn.query_one("#host", Input)
        # A host that is not one, then a first prompt (not carried): both refused.
        host.value = "nope"
        spawn.action_submit()
        await pilot.pause()
        error = spawn.query_one("#error")
        assert app.screen is spawn and "no host named 'nope'" in str(error.render())
        host.value = "box"
        worktree = spawn.query_one("#worktree", Checkbox)
        worktree.value = True
        spawn.action_submit()
        await pilot.pause()
        assert app.screen is spawn and REMOTE_LIMITS[:40] in str(error.render())
        worktree.value = False
        spawn.query_one("#prompt", Input).value = "count the pears 42"
        spawn.action_submit()
        await wait_for(
            pilot,
            lambda: any(p.remote_host == "box" and p.connected for p in dash.panes),
            timeout=40,
        )
        (pane,) = [p for p in dash.panes if p.remote_host == "box"]
        assert pane.agent == "demo"
        there = remote_sessions(remote)
        assert [s["id"] for s in there] == [pane.remote_session]  # type: ignore[attr-defined]
        assert there[0]["harness"] == "demo"
        waited = remote_zirv(
            remote,
            "ctx",
            "api",
            "call",
            "session.wait",
            json.dumps({"session": pane.remote_session, "text": "count the pears 42"}),
        )
        assert json.loads(waited.stdout)["matched"] == "count the pears 42", waited.stdout
