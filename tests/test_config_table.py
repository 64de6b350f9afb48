"""The settings model is the one declaration of every setting; `config/table.py`
(what start-up reads instead of the model) and the README's settings table are
generated from it, and must be what the generator makes of the model now."""

from __future__ import annotations

from zirv_dash.config import generate, table


def test_the_plain_table_is_what_the_model_generates() -> None:
    assert generate.TABLE.read_text(encoding="utf-8") == generate.render_table(), (
        "config/table.py is stale: run `python -m zirv_dash.config.generate`"
    )


def test_the_imported_table_holds_the_generated_data() -> None:
    for name, value in generate.table_data().items():
        assert getattr(table, name) == value, name


def test_the_readme_settings_table_is_what_the_model_generates() -> None:
    readme = generate.README.read_text(encoding="utf-8")
    assert generate.readme_with_table(readme, generate.table_data()) == readme, (
        "README.md's settings table is stale: run `python -m zirv_dash.config.generate`"
    )


def test_every_modelled_key_is_in_the_readme_and_the_init_sample() -> None:
    from zirv_dash.config.sample import SAMPLE_CTX_TOML

    readme = generate.README.read_text(encoding="utf-8")
    for section, fields in table.SECTIONS.items():
        for name in fields:
            assert f"| `{section}.{name}` |" in readme
            assert f"# {name} = " in SAMPLE_CTX_TOML
            assert table.ENV[section][name] in SAMPLE_CTX_TOML
