"""SGR transitions as a graph of dicts.

A styled run (text between SGR, CUP and EL sequences) changes the rendition
once per SGR. Every rendition seen is a *node*: a ``dict`` from an SGR to the
next node, plus two reserved keys no SGR key can be: ``ATTR`` (``"a"``)
holding the node's :class:`Attr` and ``CELL`` (``"c"``) the 1-tuple of it
(what ``(a,) * n`` repeats for a piece of ``n`` cells); ``ERASE`` (``"e"``),
stored on first use, is the Attr an erase in that rendition blanks with. An
SGR is keyed two ways, both mapping to the same node: by its parameters
(``"1;31"``, what ``str.partition`` leaves of a piece of an SGR-only run) and
by the whole sequence after ``ESC [`` (``"1;31m"``, what the general split
yields). So a transition seen before is one ``dict.get``, and the renditions
along an SGR-only run are ``accumulate(params, dict.get, initial=node)``: one
C loop, no Python frame per sequence. A transition not in the graph yet makes
``dict.get`` return ``None`` (and the step after it raise ``TypeError``);
:func:`walk` then fills the missing transitions with :func:`apply_sgr`.

The graph is bounded: past ``_LIMIT`` transitions it starts again empty.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate
from operator import itemgetter
from typing import Any, cast

from .attr import DEFAULT_ATTR, INTERN_GENERATION, Attr, apply_sgr

# A node: SGR key -> next node, ATTR -> its Attr, CELL -> (its Attr,).
Node = dict[str, Any]

ATTR = "a"
CELL = "c"
ERASE = "e"
attr_of = itemgetter(ATTR)
cell_of = itemgetter(CELL)
_LIMIT = 16384

_nodes: dict[Attr, Node] = {}
# dict.get as accumulate calls it: (node, params) -> next node or None.
_get = cast(Callable[[Any, str], Any], dict.get)
_edges = 0
_generation = 0


def node_for(attr: Attr) -> Node:
    """The node of ``attr`` (made on first use)."""
    if INTERN_GENERATION[0] != _generation:
        reset()  # the renditions were interned again: draw with the new objects
    node = _nodes.get(attr)
    if node is None:
        node = _nodes[attr] = {ATTR: attr, CELL: (attr,)}
    return node


def step(node: Node, params: str, key: str) -> Node:
    """Add (and return) the transition of ``node`` by the SGR ``params``,
    stored under ``key`` (``params`` itself, or the sequence with its "m")."""
    global _edges
    if _edges >= _LIMIT:
        # Start again: a stream of ever new colours (a gradient) must not
        # grow the graph without bound.  Nodes still referenced keep working.
        _nodes.clear()
        _edges = 0
    nxt = node_for(apply_sgr(node[ATTR], params))
    node[key] = nxt
    _edges += 1
    return nxt


def link(node: Node, key: str, nxt: Node) -> None:
    """Store ``nxt``, a transition of ``node`` already in the graph, under
    one more ``key`` (the whole sequence, when it was walked by its
    parameters)."""
    global _edges
    if _edges < _LIMIT:
        node[key] = nxt
        _edges += 1


def walk(start: Node, params: list[str]) -> list[Node]:
    """The nodes after each SGR of ``params``, ``start`` first:
    ``len(params) + 1`` nodes."""
    try:
        out: list[Node | None] = list(accumulate(params, _get, initial=start))
    except TypeError:
        out = [None]  # a transition is missing before the last step
    if out[-1] is not None:
        return out  # type: ignore[return-value]  # no None in it: each step used a node
    nodes = [start]
    node = start
    for p in params:
        nxt = node.get(p)
        node = nxt if nxt is not None else step(node, p, p)
        nodes.append(node)
    return nodes


def reset() -> None:
    """Forget every transition (tests use it to start from an empty graph)."""
    global _edges, _generation
    _nodes.clear()
    _edges = 0
    _generation = INTERN_GENERATION[0]


__all__ = [
    "ATTR",
    "CELL",
    "DEFAULT_ATTR",
    "ERASE",
    "Node",
    "attr_of",
    "cell_of",
    "link",
    "node_for",
    "reset",
    "step",
    "walk",
]
