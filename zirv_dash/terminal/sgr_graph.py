"""SGR transitions as a graph that C code can walk.

A styled run (text between SGR, CUP and EL sequences) changes the rendition
once per SGR.  Looking each change up in Python -- one ``dict.get`` on a key
built from the current attribute and the parameters -- is what a highlighter's
output costs most.  Here every rendition seen is a *node*: a ``dict`` mapping
an SGR parameter string (the text between ``CSI`` and ``m``) to the next
node, plus two reserved keys -- ``ATTR`` (``"m"``, which no parameter string
can be) holding the node's :class:`Attr`, and ``None`` mapping to the node
itself (a CUP or EL in the run: the rendition does not change).  So the
renditions after each sequence of a run are
``accumulate(sgr_params, dict.get, initial=node)``: one C loop, no Python
frame per sequence.  A transition not in the graph yet makes ``dict.get``
return ``None`` (and the step after it raise ``TypeError``); :func:`walk`
then fills the missing transitions with :func:`apply_sgr`.

The graph is bounded: past ``_LIMIT`` transitions it starts again empty.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate
from operator import itemgetter
from typing import Any, cast

from .attr import DEFAULT_ATTR, Attr, apply_sgr

# A node: parameter string -> next node, ATTR -> its Attr, None -> itself.
Node = dict[str | None, Any]

ATTR = "m"
attr_of = itemgetter(ATTR)
_LIMIT = 16384

_nodes: dict[Attr, Node] = {}
# dict.get as accumulate calls it: (node, params) -> next node or None.
_get = cast(Callable[[Any, str | None], Any], dict.get)
_edges = 0


def node_for(attr: Attr) -> Node:
    """The node of ``attr`` (made on first use)."""
    node = _nodes.get(attr)
    if node is None:
        node = {ATTR: attr}
        node[None] = node
        _nodes[attr] = node
    return node


def step(node: Node, params: str) -> Node:
    """Add (and return) the transition of ``node`` by ``params``."""
    global _edges
    if _edges >= _LIMIT:
        # Start again: a stream of ever new colours (a gradient) must not
        # grow the graph without bound.  Nodes still referenced keep working.
        _nodes.clear()
        _edges = 0
    nxt = node_for(apply_sgr(node[ATTR], params))
    node[params] = nxt
    _edges += 1
    return nxt


def walk(start: Node, params: list[str | None]) -> list[Node]:
    """The nodes after each SGR of ``params`` (``None`` for a CUP or EL),
    ``start`` first: ``len(params) + 1`` nodes."""
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
        if nxt is None:
            assert p is not None  # every node maps None to itself
            nxt = step(node, p)
        node = nxt
        nodes.append(node)
    return nodes


def reset() -> None:
    """Forget every transition (tests use it to start from an empty graph)."""
    global _edges
    _nodes.clear()
    _edges = 0


__all__ = ["ATTR", "DEFAULT_ATTR", "Node", "attr_of", "node_for", "reset", "step", "walk"]
