"""Key-to-glyph latency through a loopback ssh link, next to the local socket attach
and the engine in-process, from one run; and the bytes each keystroke costs on the link.

    python bench/remote_latency.py [--keys 200] [--gap-ms 40]

Needs OpenSSH's server (Debian: openssh-server): the suite's loopback sshd
(tests/sshrig.py: a generated host key and client key on 127.0.0.1) stands in for
a remote host, its "remote user" this user with another HOME and state dir. One
runtime (`zirv session serve`, the product's engine) holds one shell session
running `cat`:

- ssh: `zirv session attach ID --host box` — key → ssh → `zirv session proxy` →
  runtime → PTY, and the echo back the same way;
- socket: `zirv session attach ID` on the same machine as the runtime;
- in-process: bench/session_latency.py's in-process figure (the engine and the
  terminal in one process, no socket).

Measured as bench/latency.py measures (a key written to the terminal, the clock
stopped when its glyph is drawn back). Bytes per keystroke: what the ssh client
process read and wrote (/proc/PID/io rchar/wchar) over the typing, per key.

Goal (the remote issue): ssh ≤ 1.5x the local socket attach, p50 and p99.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
import latency  # noqa: E402
import session_latency  # noqa: E402
from ptyterm import PtyTerminal, percentile  # noqa: E402

from tests.sshrig import ALIAS, SSHD, ZIRV, loopback_sshd  # noqa: E402


def io_bytes(pid: int) -> int:
    """Bytes `pid` read plus wrote through system calls so far."""
    try:
        text = Path(f"/proc/{pid}/io").read_text()
    except OSError:
        return 0
    fields = dict(line.split(": ") for line in text.splitlines() if ": " in line)
    return int(fields.get("rchar", 0)) + int(fields.get("wchar", 0))


def ssh_child(pid: int) -> int | None:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv0 = (entry / "cmdline").read_bytes().split(b"\0")[0]
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and argv0.endswith(b"ssh"):
            return int(entry.name)
    return None


def attach(argv: list[str], env: dict[str, str], keys: int) -> tuple[list[float], float]:
    """Latency samples, and bytes on the ssh link per key (0 without ssh)."""
    term = PtyTerminal(argv, latency.COLS, latency.ROWS, env)
    try:
        term.read_for(3.0)
        link = ssh_child(term.pid)
        before = io_bytes(link) if link else 0
        samples = latency.measure(term, keys)
        per_key = (io_bytes(link) - before) / max(1, keys) if link else 0.0
        return samples, per_key
    finally:
        term.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--keys", type=int, default=200)
    parser.add_argument("--gap-ms", type=float, default=40.0)
    args = parser.parse_args()
    if SSHD is None:
        print("needs OpenSSH's server (Debian: apt-get install openssh-server)")
        return 1
    latency.GAP = args.gap_ms / 1000
    columns: dict[str, list[float]] = {}
    with loopback_sshd() as server, tempfile.TemporaryDirectory(prefix="zrl-") as tmpdir:
        tmp = Path(tmpdir)
        local_env = latency.base_env(tmp / "local")
        local_env["ZIRV_HOME"] = str(tmp / "operator")
        remote_env = server.remote_env()
        repo = server.remote_home / "repo"
        repo.mkdir()
        runtime = subprocess.Popen(
            [sys.executable, "-m", "zirv_dash.session.cli", "session", "serve"],
            cwd=repo,
            env=remote_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        assert runtime.stdout is not None
        if "listening at" not in runtime.stdout.readline():
            raise SystemExit("the runtime did not start")
        try:
            zirv = [sys.executable, "-m", "zirv_dash.cli.main"]
            add = [*zirv, "remote", "add", "box", ALIAS, "--ssh-config", str(server.config)]
            subprocess.run([*add, "--zirv", ZIRV], env=local_env, check=True, capture_output=True)
            started = subprocess.run(
                [ZIRV, "ctx", "api", "call", "session.start", '{"harness": "shell"}'],
                env=remote_env,
                capture_output=True,
                text=True,
                check=True,
            )
            sid = json.loads(started.stdout)["session"]["id"]
            subprocess.run(
                [ZIRV, "ctx", "api", "call", "session.send_input"]
                + [json.dumps({"session": sid, "text": "cat\r"})],
                env=remote_env,
                check=True,
                capture_output=True,
            )
            attach_argv = [*zirv, "session", "attach", sid]
            columns["socket"], _ = attach(attach_argv, remote_env, args.keys)
            columns["ssh"], per_key = attach([*attach_argv, "--host", "box"], local_env, args.keys)
        finally:
            subprocess.run([ZIRV, "session", "stop", "--runtime"], env=remote_env, check=False)
            runtime.wait(60)
        (tmp / "inproc").mkdir()
        big = latency.big_file(tmp)
        inproc = session_latency.run_inproc(args.keys, tmp / "inproc", big)
        columns["in-process"] = inproc.get("idle", [])
    print(f"key-to-glyph latency, {args.keys} keys, one every {args.gap_ms:.0f} ms (ms)")
    print(f"{'path':<14}{'p50':>8}{'p99':>8}{'lost':>6}")
    for name in ("ssh", "socket", "in-process"):
        values = columns.get(name, [])
        p50, p99 = percentile(values, 50), percentile(values, 99)
        print(f"{name:<14}{p50:8.2f}{p99:8.2f}{args.keys - len(values):>6}")
    ssh, sock = columns["ssh"], columns["socket"]
    if ssh and sock:
        r50 = percentile(ssh, 50) / percentile(sock, 50)
        r99 = percentile(ssh, 99) / percentile(sock, 99)
        met = "met" if r50 <= 1.5 and r99 <= 1.5 else "NOT met"
        print(f"ssh over socket: p50 {r50:.2f}x, p99 {r99:.2f}x (goal ≤ 1.5x: {met})")
    print(f"ssh client I/O per keystroke (reads + writes, its pipes and socket): {per_key:.0f} B")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    raise SystemExit(main())
