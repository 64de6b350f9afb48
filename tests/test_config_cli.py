"""`zirv ctx config`: edits ~/.zirv/ctx.toml safely, and every hint the product
prints (env var names, `zirv ctx config …` commands) works as printed."""

from __future__ import annotations

import os
import re
import shlex
import stat
import subprocess
import tomllib
import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic.fields import FieldInfo

from zirv_dash import spawn
from zirv_dash.cli import config_keys
from zirv_dash.cli import config_verb as config_cli
from zirv_dash.config import layers as config
from zirv_dash.config.sample import SAMPLE_CTX_TOML
from zirv_dash.harnesses import adapters, catalogue


def operator_file() -> Path:
    return Path(os.environ["ZIRV_HOME"]) / "ctx.toml"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = config_cli.main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def write_operator(text: str) -> Path:
    path = operator_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# --- editing -----------------------------------------------------------------------


def test_set_keeps_other_keys_and_sections_and_writes_0600(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_operator(
        'agent = "codex"\n[dash]\nmouse = false\n[handover.claude]\ndeep = "opus"\n'
        "[upstream_only]\nkept = 1\n"
    )
    code, out, err = run(capsys, "set", "dash.max_panes", "4")
    assert (code, err) == (0, "")
    assert "dash.max_panes = 4" in out
    doc = tomllib.loads(operator_file().read_text())
    assert doc == {
        "agent": "codex",
        "dash": {"mouse": False, "max_panes": 4},
        "handover": {"claude": {"deep": "opus"}},
        "upstream_only": {"kept": 1},
    }
    assert stat.S_IMODE(operator_file().stat().st_mode) == 0o600
    assert config.load_settings(tmp_path).dash.max_panes == 4
    assert run(capsys, "get", "dash.max_panes")[:2] == (0, "4\n")
    assert run(capsys, "unset", "handover.claude.deep")[0] == 0
    assert "handover" not in tomllib.loads(operator_file().read_text())  # empty table pruned
    leftovers = [p.name for p in operator_file().parent.iterdir() if ".tmp-" in p.name]
    assert leftovers == []


def test_a_bad_value_is_refused_by_the_model_and_nothing_changes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    before = "[dash]\nmax_panes = 3\n"
    write_operator(before)
    code, _, err = run(capsys, "set", "dash.max_panes", "100")
    assert code == 1 and "dash.max_panes" in err and "less than or equal to 64" in err
    code, _, err = run(capsys, "set", "dash.mouse", "maybe")
    assert code == 1 and "dash.mouse" in err and "boolean" in err
    code, _, err = run(capsys, "set", "handover.claude.deep", "two words")
    assert code == 1 and "model id" in err
    assert operator_file().read_text() == before


def test_unknown_key_lists_close_names(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "set", "dash.max_pane", "3")
    assert code == 1 and "unknown key `dash.max_pane`" in err and "`dash.max_panes`" in err
    code, _, err = run(capsys, "get", "dahs.mouse")
    assert code == 1 and "`dash.mouse`" in err
    assert not operator_file().exists()


def test_never_writes_through_a_symlink(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "dotfiles" / "ctx.toml"
    target.parent.mkdir()
    target.write_text("[dash]\nmouse = false\n")
    operator_file().parent.mkdir(parents=True, exist_ok=True)
    operator_file().symlink_to(target)
    code, _, err = run(capsys, "set", "dash.max_panes", "4")
    assert code == 1 and "symlink" in err and "nothing was changed" in err
    assert operator_file().is_symlink()
    assert target.read_text() == "[dash]\nmouse = false\n"


def test_a_malformed_operator_file_is_named_and_left_alone(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write_operator("[dash\nmouse = false\n")
    code, _, err = run(capsys, "set", "dash.max_panes", "4")
    assert code == 1 and str(path) in err and "malformed TOML" in err
    assert path.read_text() == "[dash\nmouse = false\n"


COMMENTED = """\
# My zirv settings: hand-written, keep the notes.
agent = "claude"  # the default harness

[dash]
# A small laptop screen.
max_panes = 3  # no more than this
mouse = false

[handover.claude]
deep = "opus"  # the best one

[mail]
keep = 20
"""


def test_set_changes_one_value_and_keeps_comments_and_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = write_operator(COMMENTED)
    code, _, err = run(capsys, "set", "dash.max_panes", "4")
    assert (code, err) == (0, "")
    assert path.read_text() == COMMENTED.replace("max_panes = 3", "max_panes = 4")
    assert not path.with_name("ctx.toml.bak").exists()
    assert config.load_settings(tmp_path).dash.max_panes == 4


def test_new_keys_and_tables_are_added_and_everything_else_stays(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write_operator(COMMENTED)
    assert run(capsys, "set", "mail.max_message_bytes", "8192")[0] == 0
    assert run(capsys, "set", "handover.gemini.deep", "gemini-2.5-pro")[0] == 0
    assert run(capsys, "set", "fallback.enabled", "false")[0] == 0
    text = path.read_text()
    # Each addition goes at the end of its table (a new tier with its harness's
    # other tables, a new section last); nothing else moves.
    assert text == COMMENTED.replace(
        'deep = "opus"  # the best one\n',
        'deep = "opus"  # the best one\n\n[handover.gemini]\ndeep = "gemini-2.5-pro"\n',
    ).replace("keep = 20\n", "keep = 20\nmax_message_bytes = 8192\n\n[fallback]\nenabled = false\n")
    assert tomllib.loads(text)["handover"] == {
        "claude": {"deep": "opus"}, "gemini": {"deep": "gemini-2.5-pro"},
    }  # fmt: skip


def test_unset_keeps_comments_and_an_absent_key_says_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = write_operator(COMMENTED)
    code, out, _ = run(capsys, "unset", "dash.mouse")
    assert code == 0 and out == f"dash.mouse removed from {path}\n"
    assert path.read_text() == COMMENTED.replace("mouse = false\n", "")
    before = path.read_bytes()
    stamp = path.stat().st_mtime_ns
    code, out, err = run(capsys, "unset", "dash.mouse")
    assert code == 0 and err == ""
    assert out == f"dash.mouse is not set in {path}; nothing was changed\n"
    assert run(capsys, "unset", "handover.codex.deep")[1].startswith(
        "handover.codex.deep is not set"
    )
    assert path.read_bytes() == before and path.stat().st_mtime_ns == stamp
    # A table left with no keys goes; the comments around it stay.
    assert run(capsys, "unset", "handover.claude.deep")[0] == 0
    assert "[handover.claude]" not in path.read_text()
    assert (
        "# My zirv settings" in path.read_text() and "# A small laptop screen." in path.read_text()
    )


def test_add_and_remove_keep_a_commented_list_as_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = '[dash]\nworkdir_roots = [\n    "/srv/a",  # the first\n    "/srv/b",\n]\n'
    path = write_operator(text)
    assert run(capsys, "add", "dash.workdir_roots", "/srv/c")[0] == 0
    assert "# the first" in path.read_text()
    assert tomllib.loads(path.read_text())["dash"]["workdir_roots"] == [
        "/srv/a",
        "/srv/b",
        "/srv/c",
    ]
    assert run(capsys, "remove", "dash.workdir_roots", "/srv/b")[0] == 0
    assert "# the first" in path.read_text()
    assert tomllib.loads(path.read_text())["dash"]["workdir_roots"] == ["/srv/a", "/srv/c"]


def test_list_values_take_add_and_remove(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert run(capsys, "add", "dash.workdir_roots", "/srv/a")[0] == 0
    assert run(capsys, "add", "dash.workdir_roots", "/srv/b c")[0] == 0
    assert run(capsys, "add", "dash.workdir_roots", "/srv/a")[0] == 0  # no duplicate
    assert config.load_settings(tmp_path).dash.workdir_roots == ["/srv/a", "/srv/b c"]
    assert run(capsys, "remove", "dash.workdir_roots", "/srv/a")[0] == 0
    assert config.load_settings(tmp_path).dash.workdir_roots == ["/srv/b c"]
    code, _, err = run(capsys, "add", "dash.max_panes", "3")
    assert code == 1 and "not a list" in err


def test_a_typed_string_may_be_quoted_as_in_toml(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "set", "dash.keymap", '"tmux"')[0] == 0
    assert tomllib.loads(operator_file().read_text())["dash"]["keymap"] == "tmux"


# --- every hint works as printed ---------------------------------------------------


def _fields() -> list[tuple[str, str, FieldInfo]]:
    return [
        (section, name, info)
        for section, model in config.SECTION_MODELS.items()
        for name, info in model.model_fields.items()
    ]


def _other_value(section: str, name: str, info: FieldInfo) -> Any:
    """A valid value that differs from the default (so reading it is visible)."""
    kind = info.annotation
    default = info.get_default(call_default_factory=True)
    if kind is bool:
        return not default
    if typing.get_origin(kind) is list:
        return ["/srv/hint-check"]
    if typing.get_origin(kind) is typing.Literal:
        return next(c for c in typing.get_args(kind) if c != default)
    if kind in (int, float):
        step = 1 if kind is int else 0.05
        for candidate in (default + step, default - step):
            try:
                config.file_only(config.SECTION_MODELS[section])(**{name: candidate})
            except Exception:
                continue
            return candidate
    if kind is str:
        return f"{default}-x"
    raise AssertionError(f"no sample for {section}.{name} ({kind})")


def _as_cli(value: Any) -> str:
    return config_keys.render(value) if not isinstance(value, str) else value


def _as_env(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return config_keys.render(value) if isinstance(value, list) else str(value)


def _commands(text: str) -> list[list[str]]:
    """Every `zirv ctx config …` command quoted in a hint, as argv after `config`."""
    found = re.findall(r"`(zirv ctx config [^`]+)`", text)
    assert found, f"no `zirv ctx config` command in: {text}"
    return [shlex.split(c)[3:] for c in found]


def _env_names(text: str) -> list[str]:
    return re.findall(r"\b(ZIRV_CTX_[A-Z0-9_]+)\b", text)


def _hint_for(section: str, name: str, tmp_path: Path) -> str:
    """What the product prints about `section.name`: the repo layer's refusal for
    an operator-only key, the bad-value error from its env var for the others."""
    if not config.repo_settable(section, name):
        repo_file = tmp_path / ".zirv" / "ctx.toml"
        repo_file.parent.mkdir(exist_ok=True)
        repo_file.write_text(f"[{section}]\n{name} = 1\n")
        try:
            with pytest.raises(config.ConfigError) as info:
                config.load_settings(tmp_path)
        finally:
            repo_file.unlink()
        return str(info.value)
    return config.operator_hint(section, name)


@pytest.mark.parametrize(("section", "name"), [(s, n) for s, n, _ in _fields()])
def test_every_settings_hint_names_a_working_command_and_variable(
    section: str,
    name: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    info = config.SECTION_MODELS[section].model_fields[name]
    hint = _hint_for(section, name, tmp_path)
    value = _other_value(section, name, info)
    for argv in _commands(hint):
        assert argv[:2] == ["set", f"{section}.{name}"], hint
        code, _, err = run(capsys, "set", argv[1], _as_cli(value))
        assert code == 0, err
        assert getattr(getattr(config.load_settings(tmp_path), section), name) == value
        run(capsys, "unset", argv[1])
    names = _env_names(hint)
    assert names == [config.env_var(section, name)], hint
    monkeypatch.setenv(names[0], _as_env(value))
    assert getattr(getattr(config.load_settings(tmp_path), section), name) == value
    if info.annotation in (bool, int):
        monkeypatch.setenv(names[0], "not-a-value")
        with pytest.raises(config.ConfigError) as bad:
            config.load_settings(tmp_path)
        assert f"{section}.{name}" in str(bad.value)
        assert f"environment variable {names[0]}" in str(bad.value)


def test_a_bad_env_value_is_blamed_on_the_variable_not_the_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_operator("[dash]\nmouse = false\n")
    monkeypatch.setenv("ZIRV_CTX_DASH_MAX_PANES", "abc")
    with pytest.raises(config.ConfigError) as info:
        config.load_settings(tmp_path)
    msg = str(info.value)
    assert "environment variable ZIRV_CTX_DASH_MAX_PANES" in msg
    assert str(operator_file()) not in msg


def test_a_bad_file_value_is_blamed_on_its_file(tmp_path: Path) -> None:
    path = write_operator("[dash]\nmax_panes = 0\n")
    with pytest.raises(config.ConfigError) as info:
        config.load_settings(tmp_path)
    assert "dash.max_panes" in str(info.value) and f"from {path}" in str(info.value)


def test_an_unknown_repo_key_is_called_unknown_not_forbidden(tmp_path: Path) -> None:
    repo_file = tmp_path / ".zirv" / "ctx.toml"
    repo_file.parent.mkdir()
    repo_file.write_text("[dash]\nmax_pane = 3\n")
    with pytest.raises(config.ConfigError) as info:
        config.load_settings(tmp_path)
    msg = str(info.value)
    assert "unknown key `dash.max_pane`" in msg and "`dash.max_panes`" in msg
    assert "repo-forbidden" not in msg and "ZIRV_CTX_DASH_MAX_PANE " not in msg


def test_the_agent_hint_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    repo_file = tmp_path / ".zirv" / "ctx.toml"
    repo_file.parent.mkdir()
    repo_file.write_text('agent = "codex"\n')
    with pytest.raises(config.ConfigError) as info:
        config.load_settings(tmp_path)
    repo_file.unlink()
    hint = str(info.value)
    for argv in _commands(hint):
        assert run(capsys, argv[0], argv[1], "gemini")[0] == 0
    assert config.load_settings(tmp_path).agent == "gemini"
    (env,) = _env_names(hint)
    monkeypatch.setenv(env, "codex")
    assert config.load_settings(tmp_path).agent == "codex"


def _model_harnesses() -> list[str]:
    return [n for n in adapters.names() if catalogue.takes_model(n)]


@pytest.mark.parametrize("agent", _model_harnesses())
def test_every_handover_hint_works(
    agent: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    for tier in catalogue.TIERS:
        hints = [catalogue.config_hint(agent, tier)]
        repo_file = tmp_path / ".zirv" / "ctx.toml"
        repo_file.parent.mkdir(exist_ok=True)
        repo_file.write_text(f'[handover.{agent}]\n{tier} = "m"\n')
        with pytest.raises(config.ConfigError) as info:
            config.load_settings(tmp_path)
        repo_file.unlink()
        hints.append(str(info.value))
        for hint in hints:
            for argv in _commands(hint):
                assert argv[:2] == ["set", f"handover.{agent}.{tier}"], hint
                code, _, err = run(capsys, "set", argv[1], "vendor/model-1")
                assert code == 0, err
                assert config.load_settings(tmp_path).handover[agent][tier] == "vendor/model-1"
                assert run(capsys, "unset", argv[1])[0] == 0
            (env,) = set(_env_names(hint))
            monkeypatch.setenv(env, "vendor/model-2")
            assert config.load_settings(tmp_path).handover[agent][tier] == "vendor/model-2"
            monkeypatch.delenv(env)


def test_the_workdir_roots_hint_from_spawn_works(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.test_spawn import ctx_for, make_repo, req_for

    repo = make_repo(tmp_path / "work" / "repo")
    elsewhere = make_repo(tmp_path / "elsewhere" / "checkout")
    monkeypatch.chdir(repo)
    refused = spawn.validate(req_for(repo, workdir=str(elsewhere)), ctx_for(repo))
    assert not refused.ok
    for argv in _commands(refused.reason or ""):
        code, _, err = run(capsys, *argv)
        assert code == 0, err
    roots = config.load_settings(repo).dash.workdir_roots
    decision = spawn.validate(
        req_for(repo, workdir=str(elsewhere)), ctx_for(repo, workdir_roots=roots)
    )
    assert decision.ok, decision.reason


@pytest.mark.parametrize("agent", adapters.names())
def test_every_gate_variable_is_read(
    agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(config.gate_env(agent), "false")
    gate = config.load_adapter_gate(tmp_path, adapters.names())
    assert not gate.enabled(agent) and config.gate_env(agent) in (gate.refusal(agent) or "")


def test_every_variable_named_in_the_init_sample_is_the_real_one() -> None:
    section = ""
    checked = 0
    for line in SAMPLE_CTX_TOML.splitlines():
        header = re.match(r"# \[(\w+)\]", line)
        if header or "Operator-only keys" in line:
            section = header.group(1) if header else ""
            continue
        entry = re.match(r"# (\w+) = .*#.*?\b(ZIRV_CTX_\w+)", line)
        if not entry:
            continue
        name, var = entry.groups()
        expected = config.TOP_ENV[name] if section == "" else config.env_var(section, name)
        assert var == expected, line
        checked += 1
    assert checked >= 10


def test_an_agent_pane_may_read_but_not_change_the_operator_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ZIRV_CTX_SESSION", "aaaa1111-0000-4000-8000-000000000001")
    code, _, err = run(capsys, "add", "dash.workdir_roots", "/srv/x y")
    assert code == 1 and "ask the operator to run" in err and "nothing was changed" in err
    assert "`zirv ctx config add dash.workdir_roots '/srv/x y'`" in err
    assert not operator_file().exists()
    assert run(capsys, "get", "dash.max_panes")[:2] == (0, "9\n")
    monkeypatch.setenv("ZIRV_ALLOW_NESTED", "true")  # the operator's own shell pane
    assert run(capsys, "add", "dash.workdir_roots", "/srv/x y")[0] == 0


def test_get_shows_the_model_a_handover_would_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    built_in = catalogue.LADDERS["claude"]["deep"]
    assert run(capsys, "get", "handover.claude.deep")[:2] == (0, f'"{built_in}"\n')
    assert run(capsys, "set", "handover.claude.deep", "opus-x")[0] == 0
    assert run(capsys, "get", "handover.claude.deep")[:2] == (0, '"opus-x"\n')
    code, _, err = run(capsys, "set", "handover.shell.deep", "m")
    assert code == 1 and "no verified model flag" in err


def test_a_repo_value_that_outranks_the_write_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".zirv").mkdir()
    (tmp_path / ".zirv" / "ctx.toml").write_text("[dash]\nidle_quiet_ms = 500\n")
    code, _, err = run(capsys, "set", "dash.idle_quiet_ms", "900")
    assert code == 0 and "sets dash.idle_quiet_ms and outranks it" in err
