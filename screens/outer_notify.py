"""Send `zirv_dash.attention.notify` notifications to the terminal the dashboard runs in.

The bytes go through the Textual driver's `write`, the one stream that owns the
outer terminal: Textual writes frames from its own buffer and `driver.write`
queues ours between them, so an OSC can never land in the middle of a frame's
escape sequence (a second writer on /dev/tty could interleave with one). A
desktop notifier runs on a daemon thread so a slow D-Bus never stalls input.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from typing import TYPE_CHECKING

from zirv_dash.attention import notify
from zirv_dash.attention.child_notify import ChildNoteGate

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.app import App
    from textual.screen import Screen

    from zirv_dash.attention.states import Transition
    from zirv_dash.panes.pane import Pane

_GATES: weakref.WeakKeyDictionary[object, notify.EpisodeGate] = weakref.WeakKeyDictionary()
_CHILD_GATES: weakref.WeakKeyDictionary[object, ChildNoteGate] = weakref.WeakKeyDictionary()


def child_gate(owner: object) -> ChildNoteGate:
    gate = _CHILD_GATES.get(owner)
    if gate is None:
        gate = _CHILD_GATES[owner] = ChildNoteGate()
    return gate


def _gate(owner: object) -> notify.EpisodeGate:
    gate = _GATES.get(owner)
    if gate is None:
        gate = _GATES[owner] = notify.EpisodeGate()
    return gate


def write_outer(app: App[object], data: bytes) -> bool:
    """Raw bytes to the real terminal; False headless or once the terminal is gone."""
    driver = getattr(app, "_driver", None)
    if driver is None or app.is_headless or not data:
        return False
    try:
        driver.write(data.decode("utf-8"))
    except Exception:  # noqa: BLE001 - a closed terminal loses a notification, not the app
        return False
    return True


def announce(
    screen: Screen[object], mode: notify.Mode, pane: Pane, change: Transition, focused: bool
) -> notify.Delivery | None:
    """Feed one observed state change of `pane`; notify if the episode rule says so.

    The screen keys the episode memory and gives the app. Returns what was sent.
    """
    if not _gate(screen).observe(pane.short, change.new, focused) or mode == "off":
        return None
    note = notify.Notification.for_pane(pane.title, pane.agent, change.new, change.reason)
    delivery = notify.plan(mode, note, os.environ)
    if delivery.data:
        write_outer(screen.app, delivery.data)
    if delivery.argv:
        threading.Thread(
            target=notify.run_desktop, args=(delivery.argv,), name="notify", daemon=True
        ).start()
    return delivery


def announce_child(
    screen: Screen[object],
    mode: notify.Mode,
    pane: Pane,
    note: tuple[str, str],
    focused: bool,
    say: Callable[[str], None],
) -> notify.Delivery | None:
    """A notification `pane`'s child asked for (title, body): said as zirv's own
    (`say`: the notice line; then the outer terminal, as `mode` says), on the
    gate's terms (`zirv_dash.attention.child_notify`). Returns what was sent to
    the outer terminal (None: nothing)."""
    if not child_gate(screen).observe(pane.short, focused, time.monotonic()):
        return None
    title, body = note
    said = notify.clean(f"{title}: {body}" if title and body else title or body)
    say(f"✉ {pane.short} {said}")
    if focused or mode == "off":
        return None
    delivery = notify.plan(
        mode,
        notify.Notification(title="zirv", body=notify.clean(f"{pane.title} {said}")),
        os.environ,
    )
    if delivery.data:
        write_outer(screen.app, delivery.data)
    if delivery.argv:
        threading.Thread(
            target=notify.run_desktop, args=(delivery.argv,), name="notify", daemon=True
        ).start()
    return delivery
