"""`zirv agent --host NAME HARNESS PROMPT`: the agent runs in that host's runtime
(session.start over the ssh link, with its first prompt), and the receipt names
the host. A real sshd and a real remote runtime (tests/sshrig.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.sshrig import ALIAS, ZIRV, SshServer, needs_sshd
from tests.test_remote_faults import remote, remote_zirv, sshd  # noqa: F401

pytestmark = [needs_sshd, pytest.mark.timeout(120)]


def zirv(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )


def test_agent_on_a_host_runs_there_with_its_prompt(remote: SshServer) -> None:  # noqa: F811
    added = zirv("remote", "add", "box", ALIAS, "--ssh-config", str(remote.config), "--zirv", ZIRV)
    assert added.returncode == 0, added.stderr
    done = zirv("agent", "--host", "box", "demo", "count the apples 42", "--json")
    assert done.returncode == 0, done.stderr
    receipt = json.loads(done.stdout)
    assert receipt["host"] == "box" and receipt["harness"] == "demo" and receipt["session"]
    waited = remote_zirv(
        remote,
        "ctx",
        "api",
        "call",
        "session.wait",
        json.dumps({"session": receipt["session"], "text": "count the apples 42", "timeout": 30}),
    )
    assert waited.returncode == 0, waited.stderr
    assert json.loads(waited.stdout)["matched"] == "count the apples 42", waited.stdout
    text = zirv("agent", "--host", "box", "demo", "more apples")
    assert text.returncode == 0 and "on box as " in text.stdout


@pytest.mark.parametrize(
    ("argv", "code", "says"),
    [
        (["--host", "box", "demo", "--model=-x", "hi"], 2, "may not begin with '-'"),
        (["--host", "nowhere", "demo", "hi"], 1, "no host named 'nowhere'"),
    ],
)
def test_agent_on_a_host_refuses_bad_input(argv: list[str], code: int, says: str) -> None:
    done = zirv("agent", *argv)
    assert done.returncode == code and says in done.stderr, done.stderr
