"""`config.mail_limits`: the two values `zirv ctx send` needs, without pydantic,
always agreeing with `load_settings` (values and errors alike)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from zirv_dash.config.layers import ConfigError, load_settings, mail_limits


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def outcome(call: object) -> object:
    assert callable(call)
    try:
        return call()
    except ConfigError as exc:
        return f"ConfigError: {exc}"


def full(repo: Path) -> tuple[int, int]:
    settings = load_settings(repo)
    return settings.mail.keep, settings.mail.max_message_bytes


CASES: list[tuple[str, str, dict[str, str]]] = [
    ("", "", {}),
    ("[mail]\nkeep = 7\nmax_message_bytes = 100\n", "", {}),
    ("[mail]\nmax_message_bytes = 100\n", "[mail]\nmax_message_bytes = 2048\n", {}),
    ("[mail]\nkeep = 7\n", "", {"ZIRV_CTX_MAIL_KEEP": "9"}),
    ("", "", {"zirv_ctx_mail_max_message_bytes": "512"}),
    ("[mail]\nmax_message_bytes = 10\n", "", {}),
    ("[mail]\nmax_message_bytes = 2000000\n", "", {}),
    ("", "", {"ZIRV_CTX_MAIL_KEEP": "many"}),
    ("", "", {"ZIRV_CTX_MAIL_KEEP": " 5"}),
    ("", "", {"ZIRV_CTX_MAIL_KEEP": "0"}),
    ("", "[mail]\nkeep = 1\n", {}),
    ("[mail]\nkeep = true\n", "", {}),
    ("[mail]\nkeep = 64.0\n", "", {}),
    ('[mail]\nkeep = "12"\n', "", {}),
    ('mail = "x"\n', "", {}),
    ("[mail\n", "", {}),
    ("[supervise]\npoll_ms = 'x'\n[mail]\nkeep = 3\n", "", {}),
]


@pytest.mark.parametrize(("operator", "repo_text", "env"), CASES)
def test_mail_limits_agree_with_load_settings(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    operator: str,
    repo_text: str,
    env: dict[str, str],
) -> None:
    if operator:
        write(Path(os.environ["ZIRV_HOME"]) / "ctx.toml", operator)
    if repo_text:
        write(tmp_path / ".zirv" / "ctx.toml", repo_text)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert outcome(lambda: mail_limits(tmp_path)) == outcome(lambda: full(tmp_path))


def test_mail_limits_take_each_layer_and_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(Path(os.environ["ZIRV_HOME"]) / "ctx.toml", "[mail]\nkeep = 7\nmax_message_bytes = 100\n")
    write(tmp_path / ".zirv" / "ctx.toml", "[mail]\nmax_message_bytes = 2048\n")
    assert mail_limits(tmp_path) == (7, 2048)
    monkeypatch.setenv("ZIRV_CTX_MAIL_KEEP", "9")
    assert mail_limits(tmp_path) == (9, 2048)


def test_mail_limits_do_not_import_pydantic(tmp_path: Path) -> None:
    write(Path(os.environ["ZIRV_HOME"]) / "ctx.toml", "[mail]\nkeep = 7\n")
    code = (
        "import sys; from pathlib import Path; from zirv_dash.config import layers as config; "
        f"print(config.mail_limits(Path({str(tmp_path)!r}))); "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pydantic', 'textual')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    )
    assert done.stdout.splitlines() == ["(7, 4096)", "[]"]
