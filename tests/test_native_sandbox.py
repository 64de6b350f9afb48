"""`run_command` under bubblewrap contains: no credential, no capability, no home.

Each test runs real commands in a real bwrap (skipped, naming why, where bwrap
is missing or cannot make namespaces) and checks from inside what the command
can see: its environment, its capabilities, what a remount does, and which of
the operator's files it can read.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from zirv_dash.native import tools
from zirv_dash.native.tools import ToolResult, Workdir, execute

CREDENTIAL = "sk-route-secret-4711"


async def run(wd: Workdir, command: str) -> ToolResult:
    return await execute(wd, "run_command", {"command": command})


@pytest.fixture
async def boxed_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private HOME holding an SSH key and `~/.zirv/native.toml`, as an
    operator's does; skip when no sandbox can run here."""
    if shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed")
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY\n")
    (home / ".zirv").mkdir()
    (home / ".zirv" / "native.toml").write_text('credential = "file:/nope" # NATIVE-TOML\n')
    (home / "notes.txt").write_text("home notes\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ZIRV_HOME", str(home / ".zirv"))
    probe_dir = tmp_path / "probe"
    probe_dir.mkdir()
    probe = await run(Workdir(probe_dir), "true")
    if not probe.ok:
        pytest.skip(f"bwrap cannot create namespaces here: {probe.output}")
    return home


def test_the_argv_starts_from_nothing_and_drops_everything(tmp_path: Path) -> None:
    wd = Workdir(tmp_path)
    wd.bwrap = "/usr/bin/bwrap"
    argv = tools.command_argv(wd, "make")
    joined = " ".join(argv)
    assert "--cap-drop ALL" in joined and "--new-session" in argv and "--die-with-parent" in argv
    assert "--unshare-all" in argv and "--clearenv" in argv
    assert "--ro-bind / /" not in joined  # never the whole filesystem
    assert f"--bind {wd.root} {wd.root}" in joined
    assert argv[-3:] == ["/bin/sh", "-c", "make"]


@pytest.mark.parametrize("sandboxed", [True, False])
async def test_a_command_gets_the_allow_list_and_never_a_credential(
    boxed_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandboxed: bool
) -> None:
    # As a route with `credential = "env:ZIRV_LOOPBACK_KEY"` and a dashboard pane have them.
    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", CREDENTIAL)
    monkeypatch.setenv("ANTHROPIC_API_KEY", CREDENTIAL)
    monkeypatch.setenv("ZIRV_CTX_SESSION", "s-1234")
    monkeypatch.setenv("ZIRV_CTX_SOCKET", "/tmp/zirv.sock")
    root = tmp_path / "wd"
    root.mkdir()
    wd = Workdir(root, sandbox=sandboxed)
    assert wd.sandbox is sandboxed
    result = await run(wd, "env")
    assert result.ok, result.output
    names = {line.split("=", 1)[0] for line in result.output.splitlines() if "=" in line}
    assert CREDENTIAL not in result.output and "s-1234" not in result.output
    assert names <= {"PATH", "LANG", "TERM", "HOME", "PWD", "SHLVL", "_"}, names
    assert {"PATH", "TERM", "HOME"} <= names


@pytest.mark.skipif(os.geteuid() != 0, reason="the capability check needs root (CI runs as root)")
async def test_as_root_the_sandbox_has_no_capability_and_cannot_remount(
    boxed_home: Path, tmp_path: Path
) -> None:
    root = tmp_path / "wd"
    root.mkdir()
    wd = Workdir(root)
    caps = await run(wd, "grep CapEff /proc/self/status")
    assert caps.ok and caps.output.split()[1] == "0000000000000000", caps.output
    for target in ("/", "/usr"):
        remount = await run(wd, f"mount -o remount,bind,rw {target} && echo REMOUNTED")
        assert not remount.ok and "REMOUNTED" not in remount.output, remount.output
    write = await run(wd, "touch /usr/zirv-escaped || echo refused")
    assert "refused" in write.output and not Path("/usr/zirv-escaped").exists()


@pytest.mark.parametrize("where", ["inside-home", "is-home", "holds-home"])
async def test_the_home_and_zirv_config_are_not_visible(
    boxed_home: Path, tmp_path: Path, where: str
) -> None:
    if where == "inside-home":
        root = boxed_home / "proj"
        root.mkdir()
    elif where == "is-home":
        root = boxed_home
    else:
        root = tmp_path
    wd = Workdir(root)
    for secret in (boxed_home / ".ssh" / "id_ed25519", boxed_home / ".zirv" / "native.toml"):
        for spelling in (str(secret), "~/" + str(secret.relative_to(boxed_home))):
            result = await run(wd, f"cat {spelling}")
            assert "PRIVATE-KEY" not in result.output and "NATIVE-TOML" not in result.output
            assert not result.ok, (spelling, result.output)
    listing = await run(wd, "ls -a ~; echo made > made.txt")
    assert listing.ok and (root / "made.txt").read_text() == "made\n"
    notes = await run(wd, f"cat {boxed_home / 'notes.txt'}")
    # The rest of the home shows only where the workdir is the home itself.
    assert ("home notes" in notes.output) is (where == "is-home")
    keys = await run(wd, "cat /etc/ssh/ssh_host_*_key /etc/shadow 2>/dev/null; echo done")
    assert "PRIVATE KEY" not in keys.output and "root:" not in keys.output


async def test_only_system_directories_and_the_workdir_are_there(
    boxed_home: Path, tmp_path: Path
) -> None:
    root = tmp_path / "wd"
    root.mkdir()
    result = await run(Workdir(root), "ls /; ls /var /root /work /srv 2>&1 | head -5")
    top = set(result.output.split())
    assert {"usr", "etc", "tmp", "proc", "dev"} <= top
    assert not {"var", "root", "work", "srv", "home", "mnt"} & top


def _running(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


@pytest.mark.parametrize("sandboxed", [True, False])
async def test_a_cancelled_command_is_gone_when_the_cancel_returns(
    boxed_home: Path, tmp_path: Path, sandboxed: bool
) -> None:
    import asyncio
    import random

    marker = f"{random.randint(1000, 9999)}.{random.randint(100000, 999999)}"
    root = tmp_path / "wd"
    root.mkdir()
    task = asyncio.ensure_future(run(Workdir(root, sandbox=sandboxed), f"sleep {marker}"))
    async with asyncio.timeout(10):
        while not _running(f"sleep\0{marker}"):
            await asyncio.sleep(0.02)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    async with asyncio.timeout(2):  # the sandbox's own init reaps it as it dies
        while _running(f"sleep\0{marker}"):
            await asyncio.sleep(0.02)


async def test_a_shell_line_in_a_session_on_a_route_never_sees_its_credential(
    boxed_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio

    from zirv_dash import paths
    from zirv_dash.native import open_session

    monkeypatch.setenv("ZIRV_LOOPBACK_KEY", CREDENTIAL)
    monkeypatch.setenv("ZIRV_CTX_SESSION", "s-1234")
    (paths.operator_dir() / "native.toml").write_text(
        """schema = 1
[endpoint.here]
provider = "openai-compatible"
vendor = "vllm"
base_url = "http://127.0.0.1:9"
[account.me]
provider = "openai-compatible"
credential = "env:ZIRV_LOOPBACK_KEY"
[route.main]
account = "me"
endpoint = "here"
model = "m"
"""
    )
    root = tmp_path / "wd"
    root.mkdir()
    session = open_session(root, "creds")
    assert session.route.secret() is not None  # the route does hold it
    session.submit("!env; cat ~/.zirv/native.toml")
    async with asyncio.timeout(10):
        while session.pending is None:
            await asyncio.sleep(0.01)
    session.answer(session.pending.call_id, "once")
    await session.wait_idle()
    finished = [e for e in session.events if e.kind == "tool_finish"][-1]
    output = str(finished.data["output"])
    assert "HOME=" in output and CREDENTIAL not in output and "ZIRV_CTX" not in output
    assert "ZIRV_LOOPBACK_KEY" not in output  # neither the toml nor the variable
    await session.close()


def test_a_home_of_slash_does_not_cover_the_sandbox(tmp_path: Path) -> None:
    from zirv_dash.native.sandbox import bwrap_argv

    argv = bwrap_argv("/usr/bin/bwrap", tmp_path, Path("/"), "true")
    pairs = list(zip(argv, argv[1:], strict=False))
    assert ("--tmpfs", "/") not in pairs and ("--setenv", "HOME") in pairs
    assert argv[argv.index("HOME", argv.index("--clearenv")) + 1] == "/tmp/home"
