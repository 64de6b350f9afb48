from __future__ import annotations

from pathlib import Path

import pytest

from zirv_dash.keymap import (
    ACTION_IDS,
    KeymapError,
    PrefixFilter,
    Verdict,
    describe_key,
    load_keymap,
    load_preset,
)


def test_default_preset_binds_the_documented_chords() -> None:
    km = load_preset("default")
    assert km.prefix == "ctrl+a"
    expect = {
        "1": "focus_1",
        "9": "focus_9",
        "tab": "next_pane",
        "up": "select_up",
        "down": "select_down",
        "z": "zoom",
        "s": "spawn",
        "e": "errors",
        "?": "help",
        "h": "help",
        "b": "toggle_sidebar",
        "q": "quit",
        "pageup": "scroll_page_up",
        "pagedown": "scroll_page_down",
        "home": "scroll_top",
        "end": "scroll_live",
    }
    for chord, action in expect.items():
        assert km.bindings[chord] == action
    assert set(km.bindings.values()) <= ACTION_IDS


def test_tmux_preset_uses_ctrl_b_and_keeps_defaults() -> None:
    km = load_preset("tmux")
    assert km.prefix == "ctrl+b"
    assert km.bindings["z"] == "zoom"
    assert km.bindings["o"] == "next_pane"


def test_prefix_state_machine() -> None:
    f = PrefixFilter(load_preset("default"))
    assert f.feed("x", "x").verdict is Verdict.TO_CHILD
    assert f.feed("ctrl+a", "\x01").verdict is Verdict.ARMED
    res = f.feed("z", "z")
    assert res.verdict is Verdict.ACTION and res.action == "zoom"
    # Prefix twice sends a literal prefix.
    f.feed("ctrl+a", "\x01")
    assert f.feed("ctrl+a", "\x01").verdict is Verdict.LITERAL_PREFIX
    # Unbound chords are swallowed, and the prefix disarms.
    f.feed("ctrl+a", None)
    assert f.feed("x", "x").verdict is Verdict.SWALLOW
    assert f.feed("x", "x").verdict is Verdict.TO_CHILD
    # Ctrl/Alt chords after the prefix are swallowed too.
    f.feed("ctrl+a", None)
    assert f.feed("ctrl+q", "\x11").verdict is Verdict.SWALLOW
    # '?' arrives as a named key with its character.
    f.feed("ctrl+a", None)
    assert f.feed("question_mark", "?").action == "help"
    # Tab is a chord after the prefix, but an ordinary key without it.
    assert f.feed("tab", "\t").verdict is Verdict.TO_CHILD
    f.feed("ctrl+a", None)
    assert f.feed("tab", "\t").action == "next_pane"


def test_raw_control_byte_counts_as_prefix() -> None:
    f = PrefixFilter(load_preset("default"))
    assert f.feed("unknown", "\x01").verdict is Verdict.ARMED


def test_user_overrides(tmp_path: Path) -> None:
    user = tmp_path / "keymap.toml"
    user.write_text('prefix = "ctrl+g"\n[bindings]\n"x" = "quit"\n"q" = ""\n')
    km = load_keymap(user_file=user)
    assert km.prefix == "ctrl+g"
    assert km.bindings["x"] == "quit"
    assert "q" not in km.bindings
    f = PrefixFilter(km)
    assert f.feed("ctrl+a", "\x01").verdict is Verdict.TO_CHILD
    assert f.feed("ctrl+g", "\x07").verdict is Verdict.ARMED


def test_user_preset_choice(tmp_path: Path) -> None:
    user = tmp_path / "keymap.toml"
    user.write_text('preset = "tmux"\n')
    assert load_keymap(user_file=user).prefix == "ctrl+b"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("[bindings]\n'x' = 'explode'\n", "unknown action 'explode'"),
        ("prefix = 3\n", "prefix must be a key name"),
        ("preset = 'emacs'\n", "unknown keymap preset 'emacs'"),
        ("[bindings\n", "malformed TOML"),
        ('prefix = "ctlr+a"\n', "unknown modifier 'ctlr'"),
        ('prefix = "ctrl+kitten"\n', "unknown key 'kitten'"),
        ('prefix = "Ctrl+a"\n', "unknown modifier 'Ctrl'"),
        ("[bindings]\n'ctlr+z' = 'zoom'\n", "binding 'ctlr+z' has unknown modifier"),
        ("[bindings]\n'pgup' = 'zoom'\n", "unknown key 'pgup'"),
        ("[bindings]\n'' = 'zoom'\n", "is empty"),
    ],
)
def test_bad_user_keymaps_are_explained(tmp_path: Path, text: str, fragment: str) -> None:
    user = tmp_path / "keymap.toml"
    user.write_text(text)
    with pytest.raises(KeymapError) as info:
        load_keymap(user_file=user)
    assert fragment in str(info.value)


def test_describe_key() -> None:
    assert describe_key("ctrl+a") == "^A"
    assert describe_key("pageup") == "PgUp"
    assert describe_key("question_mark") == "?"


@pytest.mark.parametrize("preset", ["default", "tmux"])
def test_every_shipped_chord_is_a_valid_key_name(preset: str) -> None:
    from zirv_dash.keys import key_name_problem

    km = load_preset(preset)
    assert key_name_problem(km.prefix) is None
    assert [c for c in km.bindings if key_name_problem(c) is not None] == []


@pytest.mark.parametrize(
    "key", ["ctrl+a", "ctrl+b", "ctrl+space", "alt+x", "shift+tab", "f12", "+", "?", "é", "home"]
)
def test_valid_key_names_are_accepted(tmp_path: Path, key: str) -> None:
    user = tmp_path / "keymap.toml"
    user.write_text(f'prefix = "{key}"\n')
    assert load_keymap(user_file=user).prefix == key


@pytest.mark.parametrize("preset", ["default", "tmux"])
def test_broadcast_search_and_fold_chords_take_no_other_actions_key(preset: str) -> None:
    km = load_preset(preset)
    new = {"B": "broadcast", "/": "roster_search", "left": "collapse_group"}
    new["right"] = "expand_group"
    for chord, action in new.items():
        assert km.bindings[chord] == action
        assert km.chords_for(action) == [chord], "one chord each, not shared"
    f = PrefixFilter(km)
    # As Textual names them: `/` arrives as "slash", `B` as itself.
    for key, character, action in (("slash", "/", "roster_search"), ("B", "B", "broadcast")):
        f.feed(km.prefix, None)
        assert f.feed(key, character).action == action
    f.feed(km.prefix, None)
    assert f.feed("left", None).action == "collapse_group"
