"""The core never imports the UI: agents run `zirv ctx …` many times a minute."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import zirv_dash


def core_modules() -> list[str]:
    names = ["zirv_dash"]
    for info in pkgutil.walk_packages(zirv_dash.__path__, "zirv_dash."):
        names.append(info.name)
    return names


def test_every_core_module_imports_without_textual() -> None:
    modules = core_modules()
    assert "zirv_dash.dash.dashboard" in modules and "zirv_dash.terminal" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {modules!r}:\n"
        "    importlib.import_module(name)\n"
        "ui = ('textual', 'rich', 'widgets', 'screens')\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ui)\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "", f"core imported UI modules: {out.stdout.strip()}"


def test_help_never_imports_textual() -> None:
    code = (
        "import sys, io, contextlib\n"
        "from zirv_dash.cli import main as cli\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    rc = cli.main(['--help'])\n"
        "assert rc == 0 and 'zirv chat' in buf.getvalue()\n"
        "print('textual' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
