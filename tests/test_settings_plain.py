"""Plainly valid settings are taken without pydantic (`config.plain`): the
generated table it reads (`config.table`) must say what the models say, and
whatever it accepts must come out exactly as the models would make it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import AliasChoices

from zirv_dash.config import layers as config
from zirv_dash.config import plain as settings_plain
from zirv_dash.config import table as settings_table
from zirv_dash.config.model import SECTION_MODELS, Settings


def _bounds(info: typing.Any) -> tuple[int | None, int | None]:
    low = high = None
    for item in info.metadata:
        low = getattr(item, "ge", low)
        high = getattr(item, "le", high)
    return low, high


def _kind(annotation: object) -> settings_table.Kind:
    if typing.get_origin(annotation) is typing.Literal:
        return typing.get_args(annotation)
    return {bool: "bool", int: "int", float: "float", str: "str", list[str]: "strs"}[annotation]  # type: ignore[index]


@pytest.mark.parametrize("section", list(SECTION_MODELS))
def test_the_table_declares_each_field_as_its_model_does(section: str) -> None:
    model = SECTION_MODELS[section]
    table = settings_table.SECTIONS[section]
    assert list(table) == list(model.model_fields)
    for name, info in model.model_fields.items():
        kind, default, low, high = table[name]
        assert kind == _kind(info.annotation), name
        model_default = info.default_factory() if info.default_factory else info.default  # type: ignore[call-arg]
        assert (list(default) if kind == "strs" else default) == model_default, name  # type: ignore[call-overload]
        assert (low, high) == _bounds(info), name


@pytest.mark.parametrize("section", list(SECTION_MODELS))
def test_the_table_names_every_variable_its_model_reads(section: str) -> None:
    model = SECTION_MODELS[section]
    prefix = str(model.model_config.get("env_prefix", ""))
    names: set[str] = set()
    for name, info in model.model_fields.items():
        alias = info.validation_alias
        if isinstance(alias, AliasChoices):
            names |= {str(choice).upper() for choice in alias.choices}
        else:
            names.add(f"{prefix}{name}".upper())
    assert settings_table.ENV_NAMES[section] == names


def test_a_bare_enabled_variable_is_read_by_the_models_and_so_is_theirs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("enabled", "false")  # the alias choice, any case
    assert settings_plain.plain_sections({}, os.environ) is None
    settings = config.load_settings(Path("/nonexistent-repo"))
    assert settings.dash.enabled is False and settings.mail.enabled is False


_JUNK = st.one_of(
    st.none(),
    st.floats(allow_nan=False, min_value=-100, max_value=100),
    st.sampled_from(["", "x", "1", "yes", "OSC", "tmux", True, 0, [1], {"a": 1}]),
)


def _near(
    kind: settings_table.Kind, low: float | None, high: float | None
) -> st.SearchStrategy[object]:
    """Values a field plainly takes, the edges just outside its range, and junk."""
    if kind == "int":
        edges = [b + d for b in (low, high) if b is not None for d in (-1, 0, 1)]
        return st.one_of(st.sampled_from(edges or [0]), st.integers(-10, 20_000_000), _JUNK)
    if kind == "float":
        edges = [b + d for b in (low, high) if b is not None for d in (-0.5, 0, 0.5)]
        numbers = st.floats(-10, 200, allow_nan=False)
        return st.one_of(st.sampled_from(edges or [0.0]), numbers, st.integers(-5, 150), _JUNK)
    if kind == "bool":
        return st.one_of(st.booleans(), _JUNK)
    if kind == "str":
        return st.one_of(st.text(max_size=5), _JUNK)
    if kind == "strs":
        return st.one_of(st.lists(st.text(max_size=3), max_size=2), st.lists(st.integers()), _JUNK)
    cased = [c.upper() for c in kind] + [c.title() for c in kind]
    return st.one_of(st.sampled_from([*kind, *cased]), st.booleans(), _JUNK)


_MERGED = st.fixed_dictionaries(
    {},
    optional={
        section: st.fixed_dictionaries(
            {},
            optional={
                **{name: _near(kind, low, high) for name, (kind, _, low, high) in fields.items()},
                "ZIRV_CTX_DASH": st.booleans(),
                "other": st.integers(),
            },
        )
        for section, fields in settings_table.SECTIONS.items()
    },
)


@given(_MERGED)
def test_what_is_taken_plainly_is_what_the_models_make(
    merged: dict[str, dict[str, object]],
) -> None:
    plain = settings_plain.plain_sections(merged, {})
    if plain is None:
        return  # the models decide
    for section, model in SECTION_MODELS.items():
        built = model(**merged.get(section, {}))
        assert plain[section].model_dump() == built.model_dump()


def test_defaults_and_plain_files_load_without_a_model_and_read_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in list(os.environ):
        if name.upper().startswith("ZIRV_CTX_") or name.upper() == "ENABLED":
            monkeypatch.delenv(name)
    monkeypatch.setenv("ZIRV_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "ctx.toml").write_text(
        'agent = "codex"\n[dash]\nmax_panes = 4\ntruecolor = false\nmotion = "Reduced"\n'
        '[mail]\nkeep = 7\n[handover.claude]\ncheap = "haiku"\n[worker]\nx = "y"\n'
    )
    settings = config.load_settings(tmp_path)
    assert type(settings).__name__ == "PlainSettings"
    assert settings.dash.max_panes == 4 and settings.dash.truecolor == "false"
    assert settings.dash.animated is False and settings.mail.keep == 7
    sections = {name: model(**{}) for name, model in SECTION_MODELS.items()}
    sections["dash"] = SECTION_MODELS["dash"](max_panes=4, truecolor=False, motion="Reduced")
    sections["mail"] = SECTION_MODELS["mail"](keep=7)
    expected = Settings(
        agent="codex",
        handover={"claude": {"cheap": "haiku"}},
        worker={"x": "y"},
        sources=settings.sources,
        **sections,  # type: ignore[arg-type]
    )
    assert settings.model_dump() == expected.model_dump()
    settings.dash.max_panes = 12  # as mutable as the model
    assert settings.dash.max_panes == 12


def test_a_value_that_is_not_plain_is_still_refused_in_the_models_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZIRV_HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "ctx.toml").write_text("[dash]\nmax_panes = 99\n")
    with pytest.raises(config.ConfigError) as caught:
        config.load_settings(tmp_path)
    assert "dash.max_panes: Input should be less than or equal to 64 (got 99)" in str(caught.value)


def test_loading_plain_settings_imports_no_pydantic(tmp_path: Path) -> None:
    probe = (
        "import sys, json\nfrom zirv_dash.config import layers as config\n"
        "s = config.load_settings()\n"
        "print(json.dumps([s.dash.max_panes, sorted(m for m in sys.modules if 'pydantic' in m)]))"
    )
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("ZIRV_CTX_")}
    env.update(HOME=str(tmp_path), ZIRV_HOME=str(tmp_path / ".zirv"))
    (tmp_path / ".git").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [9, []]


_ONE_FIELD = st.sampled_from(
    [(s, n, f) for s, fields in settings_table.SECTIONS.items() for n, f in fields.items()]
).flatmap(lambda t: st.tuples(st.just(t[0]), st.just(t[1]), _near(t[2][0], t[2][2], t[2][3])))


@given(_ONE_FIELD)
def test_a_value_taken_plainly_is_the_value_its_model_stores(
    case: tuple[str, str, object],
) -> None:
    section, name, value = case
    taken = settings_plain.plain_value(section, name, value)
    if taken is None:
        return
    assert getattr(SECTION_MODELS[section](**{name: value}), name) == taken
