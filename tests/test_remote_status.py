"""`zirv ctx status --all-hosts`, and mail reaching a remote pane through its own
runtime, against a real sshd and a real remote runtime (tests/sshrig.py)."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

from tests.sshrig import ALIAS, ZIRV, SshServer, needs_sshd
from tests.test_remote_faults import (  # noqa: F401 - fixtures
    Owner,
    box,
    remote,
    remote_zirv,
    sshd,
    until,
)
from zirv_dash.remote.hostlink import HostLink

pytestmark = [needs_sshd, pytest.mark.timeout(180)]


def local_zirv(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def start(server: SshServer, harness: str, name: str) -> str:
    params = json.dumps({"harness": harness, "name": name})
    done = remote_zirv(server, "ctx", "api", "call", "session.start", params)
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout)["session"]["id"])


def test_status_lists_every_hosts_sessions_and_says_why_a_host_has_none(
    remote: SshServer,  # noqa: F811
) -> None:
    sid = start(remote, "demo", "far")
    for name, zirv in (("box", ZIRV), ("bare", str(remote.root / "no-zirv-here"))):
        done = local_zirv(
            "remote", "add", name, ALIAS, "--ssh-config", str(remote.config), "--zirv", zirv
        )
        assert done.returncode == 0, done.stderr
    shown = local_zirv("ctx", "status", "--all-hosts", "--json")
    assert shown.returncode == 0, shown.stderr
    hosts = {entry["host"]: entry for entry in json.loads(shown.stdout)["hosts"]}
    assert hosts["box"]["error"] is None
    (row,) = [r for r in hosts["box"]["sessions"] if r["id"] == sid]
    assert (row["host"], row["harness"], row["name"]) == ("box", "demo", "far")
    assert row["state"] not in ("", None, "unknown", "exited")
    assert "no `" in hosts["bare"]["error"] and "zirv remote install bare" in hosts["bare"]["error"]
    assert hosts["bare"]["sessions"] == []
    text = local_zirv("ctx", "status", "--all-hosts")
    assert text.returncode == 0, text.stderr
    assert f"  {sid} demo far" in text.stdout and "@box" in text.stdout
    assert "host bare: bare: no `" in text.stdout


def test_mail_reaches_a_remote_pane_through_its_own_runtime(
    remote: SshServer,  # noqa: F811
) -> None:
    start(remote, "demo", "boss")  # the runtime's first session is its orchestrator
    sid = start(remote, "demo", "far")  # a worker: mail bodies are typed into it

    async def scenario() -> None:
        owner = Owner()
        link = HostLink(box(remote), owner)
        link.start()
        try:
            await until(
                lambda: any(p.remote_session == sid and p.connected for p in owner.panes),
                "the pane attached",
            )
            (pane,) = [p for p in owner.panes if p.remote_session == sid]

            def drawn() -> str:
                while pane.read_available():
                    pass
                while pane.pump(65536):
                    pass
                return "\n".join(pane.model_view.lines())

            await until(lambda: drawn().strip(), "the demo agent drawn")
            # Mail stored there, in the remote repository's mailbox, by the remote
            # user: the remote runtime types it; this side only sees it drawn.
            sent = await asyncio.to_thread(
                subprocess.run,
                [ZIRV, "ctx", "send", "--to-session", sid, "--message", "from-afar-42"],
                env=remote.remote_env(),
                cwd=remote.remote_home / "repo",
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert sent.returncode == 0, sent.stderr
            await until(lambda: "from-afar-42" in drawn(), "the mail drawn here", 60)
            assert "mail from" in drawn(), drawn()
        finally:
            await link.close()

    asyncio.run(scenario())
