"""Build hook: compile the terminal model's C accelerator (zirv_dash/terminal/_accel.c).

The terminal model is whole in Python; the accelerator performs the common
pieces of its styled-run path in C (see ``zirv_dash/terminal/accel.py``).
Compiling is an optimisation, never a requirement: without a C compiler or
Python's headers -- or with ``ZIRV_PURE_PYTHON=1`` -- the build goes on and
the model runs as Python.

Both kinds of install get the same layout: the extension module beside its
source in ``zirv_dash/terminal/`` plus ``_accel.digest``, the checksum of the
source it was built from (the loader uses a build only while it matches).  A
wheel carries both, built in a scratch directory; an editable install builds
them in the source tree, where ``.gitignore`` keeps them out of git.

Enabled from pyproject.toml::

    [tool.hatch.build.targets.wheel.hooks.custom]
    dependencies = ["setuptools>=68"]
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
MODULE = "_accel"

_SETUP = """\
from setuptools import Extension, setup

setup(
    name="zirv-dash-terminal-accel",
    ext_modules=[Extension({module!r}, [{source!r}])],
    script_args=["build_ext", "--inplace"],
)
"""


def _build_helpers(root: Path) -> ModuleType:
    """zirv_dash/terminal/accel_build.py, loaded by path (the package's own
    imports need dependencies a build environment does not have)."""
    path = root / PACKAGE / "accel_build.py"
    spec = importlib.util.spec_from_file_location("_zirv_accel_build", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def compile_accel(root: Path, out_dir: Path, log: Any = print) -> list[Path]:
    """Build the accelerator into ``out_dir`` (the package directory for an
    editable install, a scratch directory for a wheel) with its digest file;
    return both paths, or nothing (having said why) when it cannot be done here."""
    helper = _build_helpers(root)
    pkg = root / PACKAGE
    digest_file = out_dir / helper.DIGEST_FILE
    # Whatever was built there before goes first: a failed build must not
    # leave an old one that looks current.
    digest_file.unlink(missing_ok=True)
    for old in [*out_dir.glob(f"{MODULE}.*.so"), *out_dir.glob(f"{MODULE}.*.pyd")]:
        old.unlink()
    if os.environ.get("ZIRV_PURE_PYTHON"):
        log("zirv-dash: ZIRV_PURE_PYTHON is set: the terminal model stays pure Python")
        return []
    with tempfile.TemporaryDirectory(prefix="zirv-accel-") as tmp:
        work = Path(tmp)
        shutil.copy2(pkg / helper.SOURCE, work / helper.SOURCE)
        (work / "setup.py").write_text(_SETUP.format(module=MODULE, source=helper.SOURCE))
        try:
            done = subprocess.run(
                [sys.executable, "setup.py"], cwd=work, capture_output=True, text=True, timeout=300
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            log(f"zirv-dash: the C accelerator did not build ({exc}); the model stays pure Python")
            return []
        built = sorted(work.glob(f"{MODULE}.*.so")) + sorted(work.glob(f"{MODULE}.*.pyd"))
        if done.returncode != 0 or not built:
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            log(f"zirv-dash: the C accelerator did not build; the model stays pure Python:\n{tail}")
            return []
        target = out_dir / built[0].name
        shutil.copy2(built[0], target)
    # Written last: a half-copied build is never taken for a current one.
    digest_file.write_text(helper.source_digest(str(pkg)) + "\n", encoding="ascii")
    return [target, digest_file]


class AccelHook(BuildHookInterface):  # type: ignore[type-arg]
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        root = Path(self.root)
        if version == "editable":
            # The source tree is imported as it is: the build goes beside its source.
            self._scratch = None
            built = compile_accel(root, root / PACKAGE, log=self.app.display_warning)
        else:
            # A wheel takes the build from a scratch directory: building one
            # never touches the tree (nor an editable install's build in it).
            self._scratch = tempfile.mkdtemp(prefix="zirv-wheel-accel-")
            built = compile_accel(root, Path(self._scratch), log=self.app.display_warning)
        if not built:
            return
        self.app.display_info(f"zirv-dash: terminal model accelerator built: {built[0].name}")
        if version == "editable":
            return
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        for path in built:
            build_data["force_include"][str(path)] = f"{PACKAGE}/{path.name}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        scratch = getattr(self, "_scratch", None)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
