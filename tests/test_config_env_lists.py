"""List-valued settings from the environment: `:`-separated (like PATH) or JSON,
and a value that is neither is one line naming the variable, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from zirv_dash.config.layers import ConfigError, load_settings


@pytest.mark.parametrize(
    ("raw", "roots"),
    [
        ("/some/dir", ["/some/dir"]),
        ("/a:/b", ["/a", "/b"]),
        ("/a::/b:", ["/a", "/b"]),  # empty items mean nothing, as in PATH
        ("", []),
        ('["/a", "/with:colon"]', ["/a", "/with:colon"]),  # JSON names a path holding `:`
    ],
)
def test_workdir_roots_take_a_colon_list_or_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raw: str, roots: list[str]
) -> None:
    monkeypatch.setenv("ZIRV_CTX_DASH_WORKDIR_ROOTS", raw)
    assert load_settings(tmp_path).dash.workdir_roots == roots


def test_fallback_order_takes_a_colon_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ZIRV_CTX_FALLBACK_ORDER", "codex:claude")
    assert load_settings(tmp_path).fallback.order == ["codex", "claude"]


@pytest.mark.parametrize("raw", ["[/a", "{bad"])
def test_malformed_json_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, raw: str
) -> None:
    monkeypatch.setenv("ZIRV_CTX_DASH_WORKDIR_ROOTS", raw)
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    words = str(info.value)
    assert "ZIRV_CTX_DASH_WORKDIR_ROOTS" in words and "\n" not in words
    assert "`:`-separated" in words


def test_json_of_the_wrong_type_names_the_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_CTX_FALLBACK_ORDER", "[1]")
    with pytest.raises(ConfigError, match="from the environment variable ZIRV_CTX_FALLBACK_ORDER"):
        load_settings(tmp_path)


def test_the_cli_prints_one_line_and_no_traceback(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "ZIRV_CTX_DASH_WORKDIR_ROOTS": "[oops"}
    script = "from zirv_dash.cli.main import main; raise SystemExit(main())"
    bad = subprocess.run(
        [sys.executable, "-c", script, "ctx", "config", "get", "dash.workdir_roots"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert bad.returncode != 0
    assert "Traceback" not in bad.stderr
    assert bad.stderr.count("\n") == 1 and "ZIRV_CTX_DASH_WORKDIR_ROOTS" in bad.stderr
    env["ZIRV_CTX_DASH_WORKDIR_ROOTS"] = "/some/dir"
    good = subprocess.run(
        [sys.executable, "-c", script, "ctx", "config", "get", "dash.workdir_roots"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert good.returncode == 0, good.stderr
    assert good.stdout.strip() == '["/some/dir"]'
