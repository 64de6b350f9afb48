"""A controller built on first use, so its module is imported only then.

The engine's controllers for mail, handovers, context windows, worktrees and
stop ladders pull in most of the core (SQLite journals, hashing, the pricing
table, the spawn protocol); none of them is needed to draw the dashboard's first
frame. Each is a `Lazy` attribute of `Engine`: the first read imports its module
and builds it with the engine, later reads find it in the instance's `__dict__`
(a non-data descriptor steps aside once the attribute is set).
"""

from __future__ import annotations

import importlib
from typing import Any, Generic, TypeVar, overload

T = TypeVar("T")


class Lazy(Generic[T]):
    def __init__(self, module: str, name: str) -> None:
        self._module = module
        self._name = name
        self._attr = ""

    def __set_name__(self, owner: type, attr: str) -> None:
        self._attr = attr

    @overload
    def __get__(self, obj: None, owner: type) -> Lazy[T]: ...

    @overload
    def __get__(self, obj: object, owner: type) -> T: ...

    def __get__(self, obj: object | None, owner: type) -> Lazy[T] | T:
        if obj is None:
            return self
        factory: Any = getattr(importlib.import_module(self._module), self._name)
        value: T = factory(obj)
        obj.__dict__[self._attr] = value
        return value


def built(obj: object, attr: str) -> bool:
    """Whether `obj`'s lazy attribute `attr` exists yet (reading it would build it)."""
    return attr in obj.__dict__
