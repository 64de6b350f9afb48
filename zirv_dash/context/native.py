"""Native panes: a reading from the session's own journal (`zirv_dash/native/journal.py`).

The journal records what the engine saw from the provider, exactly: `open`
{route, model}, `input` {text, steering} (a non-steering input starts a turn),
`assistant` {text}, `tool_call` {id, name, arguments}, `tool_finish` {id, ok},
`usage` {input, output} (the provider's reported prompt and reply tokens) and
`compaction`. The context size is the last `usage.input`; the window comes from
`models.py` (the journal does not record one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from zirv_dash.context import pricing
from zirv_dash.context.facts import SessionFacts, as_dict, as_int
from zirv_dash.context.reading import ContextReading, Turn
from zirv_dash.native.journal import Event, Journal

FIELD = "journal usage.input"


class NativeReader:
    """Feeds a native session's journal events into its facts, newest first unread."""

    def __init__(self, journal: Journal, prices: Mapping[str, pricing.Price] | None = None) -> None:
        self.journal = journal
        self.prices = prices
        self.seq = 0
        self.facts = SessionFacts("native", field_name=FIELD)

    def read(self) -> ContextReading:
        """Feed the events journaled since the last read; the reading after them."""
        self.feed(self.journal.events(self.seq))
        return self.facts.reading(str(self.journal.path), 0, self.prices)

    def feed(self, events: Iterable[Event]) -> None:
        for event in events:
            self.seq = max(self.seq, event.seq)
            _apply(self.facts, event)

    def turns(self) -> list[Turn]:
        return self.facts.recent_turns()


def _apply(facts: SessionFacts, event: Event) -> None:
    data = as_dict(event.data)
    kind = event.kind
    if kind == "open":
        facts.set_model(data.get("model"))
    elif kind == "input" and not data.get("steering"):
        facts.user_turn()
    elif kind == "assistant":
        facts.assistant_text(str(data.get("text", "")))
    elif kind == "tool_call":
        facts.tool_call(str(data.get("name", "?")), data.get("arguments"))
    elif kind == "tool_finish":
        facts.tool_result(data.get("ok") is not True)
    elif kind == "usage":
        prompt = as_int(data.get("input"))
        if prompt > 0:
            facts.context_tokens = prompt
        facts.add_usage(facts.model, input=prompt, output=as_int(data.get("output")))
    elif kind == "compaction":
        facts.compaction()
