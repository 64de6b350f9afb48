"""A runtime that hosts the dashboard (`[session] persistent = true`) opens the
operator's host links too: the remote host's session shows in its engine (so in
the hosted dashboard, drawn over the link), is never served on as one of this
runtime's own sessions, and stopping the runtime detaches it (it runs on there).
Real parts: this runtime in its own process, a real sshd, a real remote runtime.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.sessionrig import engine_env, short_state  # noqa: F401
from tests.sshrig import ALIAS, ZIRV, SshServer, needs_sshd
from tests.test_remote_faults import remote, remote_zirv, sshd  # noqa: F401

pytestmark = [needs_sshd, pytest.mark.timeout(180)]

SCRIPT = textwrap.dedent(
    """
    import asyncio, json, os, signal, sys, time
    from zirv_dash.cli import chat
    from zirv_dash.session import blocking, cli

    hosts = []

    def host():
        hosts.append(chat.runtime_host())
        return hosts[0]

    def ready(path):
        async def check():
            engine = hosts[0].engine
            deadline = time.monotonic() + 60
            while not any(
                p.remote_host == "box" and p.connected for p in engine.dash.panes
            ):
                assert time.monotonic() < deadline, "no remote pane"
                await asyncio.sleep(0.1)
            (pane,) = [p for p in engine.dash.panes if p.remote_host]
            listed = await asyncio.to_thread(blocking.call, "session.list")
            ids = [s["id"] for s in listed["sessions"]]
            print(json.dumps({"remote": pane.remote_session, "title": pane.title,
                              "served": ids, "short": pane.short}), flush=True)
            os.kill(os.getpid(), signal.SIGTERM)
        asyncio.get_running_loop().create_task(check())

    raise SystemExit(asyncio.run(cli.serve(host, ready)))
    """
)


def test_the_hosted_dashboards_runtime_opens_the_host_links(
    remote: SshServer,  # noqa: F811
    short_state: Path,  # noqa: F811
) -> None:
    started = remote_zirv(
        remote, "ctx", "api", "call", "session.start", '{"harness": "shell", "name": "far"}'
    )
    assert started.returncode == 0, started.stderr
    sid = json.loads(started.stdout)["session"]["id"]
    env = engine_env(short_state)
    repo = short_state / "repo"
    repo.mkdir()
    added = subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", "remote", "add", "box", ALIAS]
        + ["--ssh-config", str(remote.config), "--zirv", ZIRV],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert added.returncode == 0, added.stderr
    ran = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        env=env,
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=150,
        check=False,
    )
    assert ran.returncode == 0, ran.stderr[-3000:]
    seen = json.loads(ran.stdout.strip().splitlines()[-1])
    assert seen["remote"] == sid and seen["title"] == "far"
    assert seen["short"] not in seen["served"] and sid not in seen["served"]
    # Stopping the runtime detached the link: the remote session runs on.
    facts = remote_zirv(remote, "ctx", "api", "call", "session.get", json.dumps({"session": sid}))
    assert json.loads(facts.stdout)["session"]["state"] == "running", facts.stdout
