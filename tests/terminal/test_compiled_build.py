"""Which build of the model runs: a compiled one only while it matches the
sources, the pure-Python one whenever asked or whenever in doubt."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import zirv_dash.terminal as terminal
from zirv_dash.terminal import compiled

PACKAGE = Path(terminal.__file__).parent


def _fake_package(tmp_path: Path) -> Path:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "compiled.py").write_text("# never compiled\n")
    (pkg / "model.py").write_text("X = 1\n")
    (pkg / "attr.py").write_text("Y = 2\n")
    build = pkg / compiled.BUILD_DIR
    build.mkdir()
    (build / compiled.DIGEST_FILE).write_text(compiled.sources_digest(str(pkg)) + "\n")
    return pkg


def test_the_chooser_and_init_are_never_compiled(tmp_path: Path) -> None:
    assert compiled.compiled_sources(str(_fake_package(tmp_path))) == ["attr.py", "model.py"]


def test_a_build_that_matches_the_sources_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZIRV_PURE_PYTHON", raising=False)
    pkg = _fake_package(tmp_path)
    assert compiled.build_dir(str(pkg)) == str(pkg / compiled.BUILD_DIR)


def test_an_edited_source_is_never_shadowed_by_its_old_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ZIRV_PURE_PYTHON", raising=False)
    pkg = _fake_package(tmp_path)
    (pkg / "model.py").write_text("X = 3\n")
    assert compiled.build_dir(str(pkg)) is None
    (pkg / "model.py").write_text("X = 1\n")
    (pkg / "new.py").write_text("Z = 0\n")  # a new module the build lacks
    assert compiled.build_dir(str(pkg)) is None


def test_no_build_or_the_switch_means_pure_python(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = _fake_package(tmp_path)
    monkeypatch.setenv("ZIRV_PURE_PYTHON", "1")
    assert compiled.build_dir(str(pkg)) is None
    monkeypatch.delenv("ZIRV_PURE_PYTHON")
    (pkg / compiled.BUILD_DIR / compiled.DIGEST_FILE).unlink()
    assert compiled.build_dir(str(pkg)) is None


def _loaded_files(env: dict[str, str]) -> list[str]:
    code = (
        "import sys, zirv_dash.terminal as t\n"
        "print(t.COMPILED)\n"
        "for n, m in sorted(sys.modules.items()):\n"
        "    if n.startswith('zirv_dash.terminal.'):\n"
        "        print(getattr(m, '__file__', ''))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
    )
    return out.stdout.split()


def test_the_switch_loads_only_python_modules() -> None:
    env = {**os.environ, "ZIRV_PURE_PYTHON": "1"}
    flag, *files = _loaded_files(env)
    assert flag == "False"
    assert files and all(f.endswith(".py") for f in files)


def test_an_installed_build_is_whole() -> None:
    """With a current build, every compiled module is the compiled one (no
    mix of compiled and Python modules)."""
    env = {k: v for k, v in os.environ.items() if k != "ZIRV_PURE_PYTHON"}
    if compiled.build_dir(str(PACKAGE)) is None:
        pytest.skip("no compiled build of the terminal model here")
    flag, *files = _loaded_files(env)
    assert flag == "True"
    names = {Path(f).name.split(".")[0] for f in files if not f.endswith(".py")}
    assert names >= {Path(n).stem for n in compiled.compiled_sources(str(PACKAGE))}
