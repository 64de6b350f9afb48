"""`zirv remote install NAME`: put this zirv on a host, over the same ssh link.

This zirv's wheel (`--wheel FILE`, or one built here from the source tree this
zirv runs from) is streamed over ssh's stdin and installed there as a tool (uv,
pipx, or a venv of its own); the installer there fetches the dependencies. The
wheel carries the terminal model's C accelerator when it was built where a
compiler was, and the model runs as pure Python where not.

The remote command is a fixed script (REMOTE_SCRIPT); the only word in it that
varies is the wheel's file name, which must look like one (no shell characters).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

from zirv_dash.remote.hosts import Host, HostError
from zirv_dash.remote.link import ssh_argv

WHEEL_NAME = re.compile(r"[A-Za-z0-9_.+-]+\.whl")
INSTALL_TIMEOUT_S = 600.0
REMOTE_SCRIPT = """\
d=$(mktemp -d) || exit 1; f="$d"/{wheel}
cat > "$f" || {{ rm -rf "$d"; exit 1; }}
if command -v uv >/dev/null 2>&1; then
  uv tool install --force "$f"; s=$?; b=$(uv tool dir --bin 2>/dev/null)
elif command -v pipx >/dev/null 2>&1; then
  pipx install --force "$f"; s=$?; b=$(pipx environment --value PIPX_BIN_DIR 2>/dev/null)
else
  v="$HOME/.local/share/zirv/venv"
  python3 -m venv "$v" && "$v/bin/python" -m pip install --quiet --upgrade "$f"; s=$?; b="$v/bin"
fi
rm -rf "$d"; [ "$s" -eq 0 ] && echo "$b/zirv"; exit "$s"
"""
"""uv's or pipx's tool install where the host has one, else a venv of its own
(never `pip install --user` into a system Python, which PEP 668 distributions
refuse). It ends by printing where `zirv` went: a non-interactive ssh login's
PATH rarely holds that directory."""


def source_tree() -> Path | None:
    """The project directory this zirv runs from, when it is a source checkout
    (an editable install); None for an installed wheel."""
    here = Path(__file__).resolve().parents[2]
    return here if (here / "pyproject.toml").is_file() and (here / "zirv_dash").is_dir() else None


def build_wheel(out: Path) -> Path:
    tree = source_tree()
    if tree is None:
        raise HostError("this zirv was installed from a wheel: pass that wheel with --wheel FILE")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out), str(tree)],
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT_S,
        check=False,
    )
    wheels = sorted(out.glob("zirv_dash-*.whl"))
    if done.returncode != 0 or not wheels:
        last = (done.stderr.strip().splitlines() or ["pip wheel failed"])[-1]
        raise HostError(f"cannot build a wheel of this zirv: {last}")
    return wheels[-1]


def install(host: Host, wheel: Path | None = None) -> tuple[int, str, str]:
    """Install on `host`: (exit status, what pip or ssh said last, the installed
    zirv's path there, or "" when that is not known)."""
    with tempfile.TemporaryDirectory(prefix="zirv-wheel-") as tmp:
        chosen = wheel or build_wheel(Path(tmp))
        if not WHEEL_NAME.fullmatch(chosen.name):
            raise HostError(f"{chosen.name!r} does not look like a wheel's file name")
        script = REMOTE_SCRIPT.format(wheel=shlex.quote(chosen.name))
        with chosen.open("rb") as data:
            done = subprocess.run(
                ssh_argv(host, ["sh", "-c", script]),
                stdin=data,
                capture_output=True,
                timeout=INSTALL_TIMEOUT_S,
                check=False,
            )
    out = done.stdout.decode("utf-8", "replace").strip().splitlines()
    err = done.stderr.decode("utf-8", "replace").strip().splitlines()
    where = out[-1].strip() if done.returncode == 0 and out else ""
    said = err[-1] if err else (out[-1] if out else "")
    return done.returncode, said, where if where.startswith("/") else ""
