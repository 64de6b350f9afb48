"""The prefix key state machine and the keymap it reads.

Keymaps are data (`keymaps/*.toml`): a prefix and a table of chord → action.
The user's `~/.zirv/keymap.toml` may pick another preset, change the prefix and
add, move or unbind chords. `PrefixFilter` turns each key press into a verdict:
send it to the child, run an action, or swallow it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from enum import Enum
from importlib import resources
from pathlib import Path
from typing import Any

from zirv_dash import paths, safeio
from zirv_dash.keys import NAMED_CHARS, key_name_problem, split_key
from zirv_dash.textcheck import UnencodableText, require_encodable

PRESETS = ("default", "tmux")
KEYMAP_FILE_CAP = 256 * 1024
"""A keymap file larger than this is refused."""


@dataclass(frozen=True)
class ActionInfo:
    id: str
    label: str
    section: str
    description: str


# The single action table: help, palette and menus are all built from it.
ACTIONS: tuple[ActionInfo, ...] = (
    ActionInfo("next_pane", "next pane", "navigate", "focus the next pane"),
    ActionInfo("select_up", "select up", "navigate", "move the roster cursor up"),
    ActionInfo("select_down", "select down", "navigate", "move the roster cursor down"),
    *(ActionInfo(f"focus_{n}", f"pane {n}", "navigate", f"focus pane {n}") for n in range(1, 10)),
    ActionInfo(
        "next_needs_you", "next needing you", "navigate", "jump to the next pane that needs you"
    ),
    ActionInfo("scroll_page_up", "scroll up", "navigate", "scroll the pane back half a page"),
    ActionInfo(
        "scroll_page_down", "scroll down", "navigate", "scroll the pane forward half a page"
    ),
    ActionInfo("scroll_top", "oldest line", "navigate", "jump to the oldest scrollback line"),
    ActionInfo("scroll_live", "live view", "navigate", "back to the live view"),
    ActionInfo("collapse_group", "fold group", "navigate", "fold the focused pane's group"),
    ActionInfo("expand_group", "unfold group", "navigate", "unfold the focused pane's group"),
    ActionInfo(
        "roster_search",
        "search roster",
        "navigate",
        "filter rows by name, harness, state or branch",
    ),
    ActionInfo("context_menu", "actions", "the selected row", "actions for the selected row"),
    ActionInfo("inspect", "inspect", "the selected row", "inspector for the selected row"),
    ActionInfo("nudge", "nudge", "the selected row", "type a note into the selected pane"),
    ActionInfo("mail", "mail", "the selected row", "browse and compose repo mail"),
    ActionInfo("handover", "handover", "the selected row", "swap the pane's harness or model"),
    ActionInfo("restore_row", "restore", "the selected row", "relaunch an ended row"),
    ActionInfo("spawn", "spawn", "dashboard", "open a new pane"),
    ActionInfo("errors", "errors", "dashboard", "recent errors"),
    ActionInfo("zoom", "zoom", "dashboard", "toggle zoom of the focused pane"),
    ActionInfo("toggle_sidebar", "sidebar", "dashboard", "show or hide the sidebar"),
    ActionInfo("grid", "grid", "dashboard", "every live pane tiled at once"),
    ActionInfo("copy_mode", "copy mode", "dashboard", "search and copy from scrollback"),
    ActionInfo(
        "knowledge", "knowledge", "dashboard", "browse the repo's .zavet decisions and specs"
    ),
    ActionInfo(
        "diff_review",
        "diff review",
        "the selected row",
        "the focused pane's changes: diff, commit, discard, comment",
    ),
    ActionInfo(
        "broadcast",
        "broadcast",
        "dashboard",
        "type into several chosen panes at once (Esc ends)",
    ),
    ActionInfo("palette", "palette", "dashboard", "search every action"),
    ActionInfo("help", "help", "dashboard", "this help"),
    ActionInfo(
        "detach", "detach", "dashboard", "leave the runtime's dashboard; every pane runs on"
    ),
    ActionInfo("quit", "quit", "dashboard", "quit (asks when a pane is working)"),
)
ACTION_IDS = frozenset(a.id for a in ACTIONS)
ACTION_BY_ID = {a.id: a for a in ACTIONS}


class KeymapError(Exception):
    pass


@dataclass
class Keymap:
    prefix: str = "ctrl+a"
    bindings: dict[str, str] = field(default_factory=dict)
    """chord → action id."""
    source: str = "default"

    def chords_for(self, action: str) -> list[str]:
        return [chord for chord, act in self.bindings.items() if act == action]

    def prefix_label(self) -> str:
        return describe_key(self.prefix)


def describe_key(key: str) -> str:
    """`ctrl+a` → `^A`, `pageup` → `PgUp`: compact labels for help and hints."""
    mods, base = split_key(key)
    pretty = {
        "pageup": "PgUp",
        "pagedown": "PgDn",
        "home": "Home",
        "end": "End",
        "tab": "Tab",
        "up": "↑",
        "down": "↓",
        "left": "←",
        "right": "→",
        "enter": "⏎",
        "escape": "Esc",
    }.get(base, NAMED_CHARS.get(base, base))
    if mods == {"ctrl"} and len(pretty) == 1:
        return "^" + pretty.upper()
    return "+".join([*sorted(m.capitalize() for m in mods), pretty])


def _read_preset(name: str) -> dict[str, Any]:
    if name not in PRESETS:
        raise KeymapError(f"unknown keymap preset {name!r} (choose one of {', '.join(PRESETS)})")
    text = resources.files("keymaps").joinpath(f"{name}.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _apply(keymap: Keymap, data: dict[str, Any], origin: str) -> None:
    prefix = data.get("prefix")
    if prefix is not None:
        if not isinstance(prefix, str) or not prefix:
            raise KeymapError(f'{origin}: prefix must be a key name such as "ctrl+a"')
        problem = key_name_problem(prefix)
        if problem is not None:
            raise KeymapError(f'{origin}: prefix {prefix!r} {problem}; e.g. prefix = "ctrl+a"')
        keymap.prefix = prefix
    bindings = data.get("bindings", {})
    if not isinstance(bindings, dict):
        raise KeymapError(f'{origin}: [bindings] must be a table of "key" = "action"')
    for chord, action in bindings.items():
        problem = key_name_problem(chord)
        if problem is not None:
            raise KeymapError(f"{origin}: binding {chord!r} {problem}")
        if not isinstance(action, str):
            raise KeymapError(f"{origin}: binding {chord!r} must name an action (a string)")
        if action in ("", "none"):
            keymap.bindings.pop(chord, None)
            continue
        if action not in ACTION_IDS:
            raise KeymapError(
                f"{origin}: binding {chord!r} names unknown action {action!r}; "
                f"known actions: {', '.join(sorted(ACTION_IDS))}"
            )
        keymap.bindings[chord] = action


def load_preset(name: str) -> Keymap:
    data = _read_preset(name)
    keymap = Keymap(source=name)
    base = data.get("preset")
    if isinstance(base, str) and base != name:
        keymap = load_preset(base)
        keymap.source = name
    _apply(keymap, data, f"keymaps/{name}.toml")
    return keymap


def _read_user_file(path: Path) -> dict[str, Any]:
    """The user's overrides ({} if absent); KeymapError naming the file for a device,
    FIFO, oversized, non-UTF-8, malformed, too deep or unencodable file."""
    try:
        data = safeio.read_toml(path, KEYMAP_FILE_CAP, max_depth=4)
        require_encodable(data or {}, "keymap")
    except (OSError, safeio.BadContent) as exc:
        raise KeymapError(str(exc)) from exc
    except UnencodableText as exc:
        raise KeymapError(f"{path}: {exc}") from exc
    return data or {}


def load_keymap(preset: str = "default", user_file: Path | None = None) -> Keymap:
    """The effective keymap: a preset plus the user's overrides."""
    user_file = user_file or paths.operator_dir() / "keymap.toml"
    user = _read_user_file(user_file)
    chosen = user.get("preset", preset)
    if not isinstance(chosen, str):
        raise KeymapError(f"{user_file}: preset must be a string")
    keymap = load_preset(chosen)
    if user:
        _apply(keymap, user, str(user_file))
        keymap.source = f"{chosen} + {user_file}"
    return keymap


# -- the prefix state machine ------------------------------------------------------------


class Verdict(Enum):
    TO_CHILD = "to_child"
    ACTION = "action"
    ARMED = "armed"
    SWALLOW = "swallow"
    LITERAL_PREFIX = "literal_prefix"


@dataclass(frozen=True)
class KeyResult:
    verdict: Verdict
    action: str | None = None


class PrefixFilter:
    """Prefix, then one chord. Unbound chords and Ctrl/Alt chords are swallowed."""

    def __init__(self, keymap: Keymap) -> None:
        self.keymap = keymap
        self.armed = False

    def _is_prefix(self, key: str, character: str | None) -> bool:
        if key == self.keymap.prefix:
            return True
        # A raw control byte can arrive unnamed (e.g. 0x01 for ctrl+a).
        mods, base = split_key(self.keymap.prefix)
        if mods == {"ctrl"} and len(base) == 1 and base.isalpha() and character:
            return character == chr(ord(base.lower()) & 0x1F)
        return False

    def feed(self, key: str, character: str | None) -> KeyResult:
        if not self.armed:
            if self._is_prefix(key, character):
                self.armed = True
                return KeyResult(Verdict.ARMED)
            return KeyResult(Verdict.TO_CHILD)
        self.armed = False
        if self._is_prefix(key, character):
            return KeyResult(Verdict.LITERAL_PREFIX)
        action = self.match(key, character)
        if action is None:
            return KeyResult(Verdict.SWALLOW)
        return KeyResult(Verdict.ACTION, action)

    def match(self, key: str, character: str | None) -> str | None:
        bindings = self.keymap.bindings
        if key in bindings:
            return bindings[key]
        mods, _base = split_key(key)
        if mods - {"shift"}:
            return None  # Ctrl/Alt chords after the prefix are never bound by character
        if character and len(character) == 1 and character.isprintable():
            return bindings.get(character)
        return None
