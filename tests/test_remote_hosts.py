"""`zirv remote`: hosts stored and checked; the link is the user's own OpenSSH.

The store and the argv are checked directly; `zirv remote check` runs against a
real sshd on 127.0.0.1 (tests/sshrig.py) and a real remote zirv and runtime.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sessionrig import ENGINE_SERVE, spawn_runtime
from tests.sshrig import ALIAS, ZIRV, SshServer, free_port, needs_sshd, sshd  # noqa: F401
from zirv_dash.remote import hosts
from zirv_dash.remote.link import proxy_argv, ssh_argv

pytestmark = pytest.mark.timeout(120)


def zirv(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "zirv_dash.cli.main", *argv],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        cwd=cwd,
    )


# -- the store ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    ["", "a b", "x;rm", "-oops", "new\nline", "a" * 33, "local", "LOCAL", "h$(id)", "é"],
)
def test_a_bad_host_name_is_refused(name: str) -> None:
    with pytest.raises(hosts.HostError, match="host name"):
        hosts.make_host(name, "user@example.org")


@pytest.mark.parametrize(
    "dest",
    [
        "-oProxyCommand=touch /tmp/pwned",
        "-p22",
        "user@host;id",
        "host name",
        "host\nother",
        "$(id)@host",
        "`id`",
        "host|cat",
        "",
        "a" * 300,
    ],
)
def test_a_destination_that_is_not_one_is_refused(dest: str) -> None:
    with pytest.raises(hosts.HostError, match="destination"):
        hosts.make_host("gpu", dest)


@pytest.mark.parametrize(
    "dest", ["user@gpu-box", "gpu", "ssh://me@10.0.0.2:2222", "me@[fe80::1%eth0]", "a.b.c"]
)
def test_what_ssh_takes_is_accepted(dest: str) -> None:
    assert hosts.make_host("gpu", dest).dest == dest


def test_a_remote_zirv_with_shell_characters_is_refused() -> None:
    for bad in ("zirv; id", "$HOME/zirv", "a b", "-c"):
        with pytest.raises(hosts.HostError, match="remote zirv"):
            hosts.make_host("gpu", "gpu", zirv=bad)


def test_hosts_are_kept_private_in_the_operators_file_only(tmp_path: Path) -> None:
    done = zirv("remote", "add", "gpu", "me@gpu-box", "--zirv", "/opt/zirv/bin/zirv")
    assert done.returncode == 0, done.stderr
    path = Path(os.environ["ZIRV_HOME"]) / "remotes.toml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # A repository's .zirv/ never adds a host, even when zirv runs inside it.
    repo = tmp_path / "repo"
    (repo / ".zirv").mkdir(parents=True)
    (repo / ".zirv" / "remotes.toml").write_text('[host.evil]\ndest = "evil@attacker"\n')
    listed = zirv("remote", "list", "--json", cwd=repo)
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert rows == [
        {"name": "gpu", "dest": "me@gpu-box", "ssh_config": None, "zirv": "/opt/zirv/bin/zirv"}
    ]
    again = zirv("remote", "add", "gpu", "other")
    assert again.returncode == 1 and "exists" in again.stderr
    removed = zirv("remote", "remove", "gpu")
    assert removed.returncode == 0 and "nothing there was stopped" in removed.stdout
    assert json.loads(zirv("remote", "list", "--json").stdout) == []
    gone = zirv("remote", "remove", "gpu")
    assert gone.returncode == 1 and "no host named 'gpu'" in gone.stderr


def test_a_malformed_hosts_file_is_reported_and_left_as_it_is() -> None:
    path = Path(os.environ["ZIRV_HOME"]) / "remotes.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    for text in (
        "[host.gpu\n",
        '[host.gpu]\ndest = "-oProxyCommand=x"\n',
        '[host.gpu]\ndest = "gpu"\nport = 22\n',
        '[host."bad name"]\ndest = "gpu"\n',
    ):
        path.write_text(text)
        listed = zirv("remote", "list")
        assert listed.returncode == 1, text
        assert str(path) in listed.stderr and "Traceback" not in listed.stderr
        added = zirv("remote", "add", "other", "other-box")
        assert added.returncode == 1
        assert path.read_text() == text  # never rewritten over the user's file


def test_the_ssh_argv_never_lets_a_destination_be_an_option() -> None:
    host = hosts.make_host("gpu", "me@gpu-box", ssh_config="/etc/zirv/ssh_config")
    argv = proxy_argv(host)
    assert argv[:3] == ["ssh", "-T", "-F"]
    assert "BatchMode=yes" in argv
    assert argv.index("--") == argv.index("me@gpu-box") - 1
    assert argv[-3:] == ["zirv", "session", "proxy"]
    # A word a remote shell would split is quoted, whatever a caller passes.
    assert ssh_argv(host, ["echo", "a b"])[-1] == "'a b'"
    assert not any(o in argv for o in ("StrictHostKeyChecking=no", "UserKnownHostsFile=/dev/null"))


def test_zirv_version_names_the_protocol() -> None:
    done = zirv("--version")
    assert done.returncode == 0
    assert done.stdout.strip().endswith("(protocol 1)"), done.stdout


# -- zirv remote check, against a real sshd ------------------------------------------------


def add_test_host(server: SshServer, name: str = "box", remote_zirv: str = ZIRV) -> None:
    done = zirv(
        "remote", "add", name, ALIAS, "--ssh-config", str(server.config), "--zirv", remote_zirv
    )
    assert done.returncode == 0, done.stderr


@needs_sshd
def test_check_says_when_the_host_has_no_zirv(sshd: SshServer) -> None:  # noqa: F811
    add_test_host(sshd, remote_zirv="/nonexistent/bin/zirv")
    done = zirv("remote", "check", "box")
    assert done.returncode == 1
    assert "no `/nonexistent/bin/zirv` there; install it with:" in done.stderr, done.stderr
    report = json.loads(zirv("remote", "check", "box", "--json").stdout)
    assert report["ok"] is False and report["kind"] == "no_zirv"


@needs_sshd
def test_check_says_when_no_runtime_runs_there(sshd: SshServer) -> None:  # noqa: F811
    add_test_host(sshd)
    done = zirv("remote", "check", "box", "--json")
    report = json.loads(done.stdout)
    assert done.returncode == 1
    assert report["kind"] == "no_runtime", report
    assert report["release"] == "0.1.0" and report["protocol"] == 1
    assert "zirv session serve" in report["problem"]


@needs_sshd
def test_check_reaches_the_remote_runtime_and_lists_its_sessions(
    sshd: SshServer,  # noqa: F811
) -> None:
    repo = sshd.remote_home / "repo"
    repo.mkdir()
    runtime = spawn_runtime(ENGINE_SERVE, cwd=repo, env=sshd.remote_env())
    try:
        started = subprocess.run(
            [ZIRV, "ctx", "api", "call", "session.start", '{"harness": "shell", "name": "far"}'],
            env=sshd.remote_env(),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        assert started.returncode == 0, started.stderr
        add_test_host(sshd)
        done = zirv("remote", "check", "box")
        assert done.returncode == 0, done.stderr
        assert "box (zirv-test): ok — zirv 0.1.0, protocol 1" in done.stdout
        assert "far" in done.stdout and "1 session(s)" in done.stdout
    finally:
        subprocess.run(
            [ZIRV, "session", "stop", "--runtime"],
            env=sshd.remote_env(),
            capture_output=True,
            timeout=60,
            check=False,
        )
        runtime.wait(60)


@needs_sshd
def test_check_says_when_the_host_key_is_not_the_known_one(sshd: SshServer) -> None:  # noqa: F811
    known = sshd.root / "known_hosts"
    other = sshd.root / "other_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True)
    known.write_text(f"[127.0.0.1]:{sshd.port} {other.with_suffix('.pub').read_text()}")
    add_test_host(sshd)
    report = json.loads(zirv("remote", "check", "box", "--json").stdout)
    assert report["kind"] == "host_key", report


@needs_sshd
def test_check_of_an_unreachable_host_ends_with_a_reason(sshd: SshServer) -> None:  # noqa: F811
    config = sshd.config.read_text().replace(f"Port {sshd.port}", f"Port {free_port()}")
    sshd.config.write_text(config)
    add_test_host(sshd)
    done = zirv("remote", "check", "box")
    assert done.returncode == 1
    assert "cannot reach zirv-test" in done.stderr and "refused" in done.stderr.lower()


@needs_sshd
@pytest.mark.timeout(900)
def test_install_puts_this_zirv_on_the_host_where_check_then_finds_it(
    sshd: SshServer,  # noqa: F811
) -> None:
    add_test_host(sshd, remote_zirv="zirv")  # nothing named zirv on the remote's PATH
    before = json.loads(zirv("remote", "check", "box", "--json").stdout)
    assert before["kind"] == "no_zirv" and "zirv remote install box" in before["problem"]
    done = zirv("remote", "install", "box")
    assert done.returncode == 0, done.stdout + done.stderr
    installed = sshd.remote_home / ".local" / "share" / "zirv" / "venv" / "bin" / "zirv"
    assert f"box now runs {installed}" in done.stdout
    after = json.loads(zirv("remote", "check", "box", "--json").stdout)
    assert after["release"] == "0.1.0" and after["protocol"] == 1, after
    assert after["kind"] == "no_runtime"  # found, the same protocol; no runtime runs there
