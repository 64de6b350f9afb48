"""One change to the operator file's text, keeping everything else as it was.

`zirv ctx config set/unset/add/remove` edit `~/.zirv/ctx.toml` through tomlkit, a
style-preserving TOML library: comments (on their own lines and after a value),
the order of keys and tables, blank lines and quoting all stay, and only the
one value changes (a new key goes at the end of its table, a new table at the
end of the file). Validation stays with the caller: the file was read and
checked by tomllib first, and the edited text is read back the same way before
it is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Array

from zirv_dash.cli.config_keys import Key, Refused, validate, value_of


@dataclass(frozen=True)
class Edited:
    """The new text, and the key's new value (None when it was unset)."""

    text: str
    value: object | None


class NotSet(Refused):
    """`unset` of a key the file does not hold: nothing to change."""


def apply(before: str, key: Key, change: str, raw: str | None, where: str) -> Edited:
    """`change` (set/unset/add/remove) of `key` applied to the text `before`.
    `where` names the file in messages. NotSet when an unset has nothing to remove."""
    try:
        doc = tomlkit.parse(before)
    except TOMLKitError as exc:
        words = f"{where}: cannot edit it keeping its layout ({exc}); nothing was changed"
        raise Refused(words) from exc
    *tables, leaf = key.parts
    if change == "unset":
        holder = _find(doc, tables)
        if holder is None or leaf not in holder:
            raise NotSet(f"{key.text} is not set in {where}; nothing was changed")
        del holder[leaf]
        _prune(doc, tables)
        return Edited(tomlkit.dumps(doc), None)
    assert raw is not None
    made: list[Any] = []
    holder = _make(doc, tables, made)
    if change == "set":
        value = value_of(key, raw)
        holder[leaf] = value
        return Edited(_dumps(doc, made, before), value)
    if not key.is_list:
        raise Refused(f"{key.text} is not a list; use `zirv ctx config set {key.text} <value>`")
    current = holder.get(leaf)
    items = [str(i) for i in current] if isinstance(current, list) else []
    if change == "add" and raw not in items:
        items.append(raw)
    elif change == "remove":
        if raw not in items:
            raise Refused(f"{raw!r} is not in {key.text} in {where}")
        items.remove(raw)
    checked = validate(key, items)
    if isinstance(current, Array) and checked == items:
        _edit_in_place(current, change, raw)  # keeps the array's own layout and comments
    else:
        holder[leaf] = checked
    return Edited(_dumps(doc, made, before), checked)


def _dumps(doc: Any, made: list[Any], before: str) -> str:
    """The document's text; each table made for this edit ends in a blank line,
    as a hand-written file separates its tables (none added at the file's end)."""
    for table in made:
        table.add(tomlkit.nl())
    text: str = tomlkit.dumps(doc)
    if made and text.endswith("\n\n") and not before.endswith("\n\n"):
        text = text.rstrip("\n") + "\n"
    return text


def _edit_in_place(array: Array, change: str, item: str) -> None:
    values = [str(v) for v in array]
    if change == "add" and item not in values:
        array.append(item)
    elif change == "remove" and item in values:
        del array[values.index(item)]


def _find(doc: Any, tables: list[str]) -> Any | None:
    holder = doc
    for name in tables:
        holder = holder.get(name)
        if holder is None or not hasattr(holder, "keys"):
            return None
    return holder


def _make(doc: Any, tables: list[str], made: list[Any]) -> Any:
    """The table at `tables`, made where missing (the innermost one made is
    added to `made`): an outer table that only holds others is a super table, so
    `[handover.claude]` is written without an empty `[handover]` above it."""
    holder = doc
    for depth, name in enumerate(tables):
        if name not in holder:
            inner = depth == len(tables) - 1
            holder[name] = tomlkit.table(is_super_table=not inner)
            if inner:
                made.append(holder[name])
        holder = holder[name]
    return holder


def _prune(doc: Any, tables: list[str]) -> None:
    """Drop tables an unset left without keys (`[handover.claude]` with no tiers)."""
    for depth in range(len(tables), 0, -1):
        parent = _find(doc, tables[: depth - 1])
        name = tables[depth - 1]
        if parent is not None and name in parent and len(parent[name]) == 0:
            del parent[name]
