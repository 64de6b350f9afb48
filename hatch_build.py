"""Build hook: compile the terminal model (zirv_dash/terminal) with mypyc.

The model is pure Python and ``mypy --strict`` clean; compiled it parses about
twice as fast.  Compiling is an optimisation, never a requirement: without a C
compiler, Python headers or mypyc -- or with ``ZIRV_PURE_PYTHON=1`` -- the
build goes on and the package runs as Python.

Both kinds of install get the same layout: the extension modules in
``zirv_dash/terminal/_compiled/`` plus a digest of the sources they came from
(see ``zirv_dash/terminal/compiled.py``, which only uses them while that digest
matches).  A wheel carries the directory; an editable install builds it in
the source tree, where it ignores itself for git.

Enabled from pyproject.toml::

    [tool.hatch.build.targets.wheel.hooks.custom]
    dependencies = ["mypy==2.4.1", "setuptools>=68"]
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

PACKAGE = "zirv_dash/terminal"
GROUP = "zirv_dash.terminal.compiled_group"  # the shared library, inside the package

_SETUP = """\
import sys
from setuptools import setup
from mypyc.build import mypycify

setup(
    name="zirv-dash-terminal-compiled",
    ext_modules=mypycify(
        ["--ignore-missing-imports", *sys.argv[1:]], opt_level="3", group_name={group!r}
    ),
    script_args=["build_ext", "--inplace"],
)
"""


def _compiled_module(root: Path) -> ModuleType:
    """zirv_dash/terminal/compiled.py, loaded by path (the package's own
    imports need dependencies a build environment does not have)."""
    spec = importlib.util.spec_from_file_location("_zirv_compiled", root / PACKAGE / "compiled.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_model(root: Path, log: Any = print) -> Path | None:
    """Compile the model into ``PACKAGE/_compiled``; return that directory, or
    None (and say why) when it cannot be done here."""
    helper = _compiled_module(root)
    src_dir = root / PACKAGE
    out_dir = src_dir / helper.BUILD_DIR
    shutil.rmtree(out_dir, ignore_errors=True)
    if os.environ.get("ZIRV_PURE_PYTHON"):
        log("zirv-dash: ZIRV_PURE_PYTHON is set: the terminal model stays pure Python")
        return None
    with tempfile.TemporaryDirectory(prefix="zirv-mypyc-") as tmp:
        work = Path(tmp)
        pkg = work / PACKAGE
        pkg.mkdir(parents=True)
        (work / "zirv_dash" / "__init__.py").write_text("")
        (pkg / "__init__.py").write_text("")
        names = helper.compiled_sources(str(src_dir))
        for name in names:
            shutil.copy2(src_dir / name, pkg / name)
        (work / "setup.py").write_text(_SETUP.format(group=GROUP))
        cmd = [sys.executable, "setup.py", *(f"{PACKAGE}/{n}" for n in names)]
        try:
            done = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=900)
        except (OSError, subprocess.TimeoutExpired) as exc:
            log(f"zirv-dash: mypyc did not run ({exc}); the terminal model stays pure Python")
            return None
        built = sorted(pkg.glob("*.so")) + sorted(pkg.glob("*.pyd"))
        if done.returncode != 0 or len(built) < len(names):
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            log(f"zirv-dash: mypyc failed; the terminal model stays pure Python:\n{tail}")
            return None
        out_dir.mkdir()
        for so in built:
            shutil.copy2(so, out_dir / so.name)
    # A build product, never committed; written last, so a half-copied
    # directory is never taken for a build.
    (out_dir / ".gitignore").write_text("*\n")
    digest = helper.sources_digest(str(src_dir))
    (out_dir / helper.DIGEST_FILE).write_text(digest + "\n", encoding="ascii")
    return out_dir


class MypycHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        out_dir = compile_model(root, log=self.app.display_warning)
        if out_dir is None:
            return
        self.app.display_info(f"zirv-dash: terminal model compiled with mypyc into {out_dir}")
        if version == "editable":
            return  # the source tree is imported as it is, _compiled/ included
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for path in out_dir.iterdir():
            if path.name != ".gitignore":
                rel = path.relative_to(root).as_posix()
                build_data["force_include"][str(path)] = rel
