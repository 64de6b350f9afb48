"""The compose dialog's addressee list, which never swallows typed text."""

from __future__ import annotations

from textual import events
from textual.message import Message

from widgets.pick_list import PickList


class TargetList(PickList):
    """The compose dialog's addressee list. Text typed here is never lost: a
    printable key moves focus to the draft and lands there."""

    class Typed(Message):
        """A printable key was typed while the list had the focus."""

        def __init__(self, target_list: TargetList, character: str) -> None:
            super().__init__()
            self.target_list = target_list
            self.character = character

        @property
        def control(self) -> TargetList:
            return self.target_list

    async def _on_key(self, event: events.Key) -> None:
        if event.character and event.is_printable:
            event.stop()
            event.prevent_default()
            self.post_message(self.Typed(self, event.character))
            return
        await super()._on_key(event)
