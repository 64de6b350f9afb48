"""`zirv ctx kill` for a native pane: it has no process of its own.

A native pane's session runs inside its dashboard, so its record's pid is the
dashboard's and signalling it would end every pane. Instead the kill travels the
dashboard's own kill path: a kill request for the pane, dropped into the pane's
private spawn channel (named in its record), which the dashboard answers with an
ack and carries out by closing that session only. The record is gone once the
dashboard has reaped the pane.
"""

from __future__ import annotations

import time
from pathlib import Path

from zirv_dash import paths
from zirv_dash.cli.ctx_common import err
from zirv_dash.dash.control_field import CONTROL_FIELD
from zirv_dash.panes import registry

NATIVE = "native"
"""The pane kind (zirv_dash.harnesses.native_kind.NATIVE; not imported: it pulls in the
adapter table, which `zirv ctx` must not load)."""
ACK_SECS = 5.0
POLL_SECS = 0.05


def is_native(record: registry.SessionRecord) -> bool:
    return record.runtime == NATIVE or record.agent == NATIVE


def control_channel(record: registry.SessionRecord) -> Path | None:
    """The pane's channel, if the record names one that is a real directory of
    this state dir's dashboards (a record is a file anyone of this user could
    have edited: it must not point a request anywhere else)."""
    from zirv_dash.spawn.channel import dash_root, is_real_dir

    raw = record.extra.get(CONTROL_FIELD)
    if not isinstance(raw, str) or not raw:
        return None
    path = Path(raw)
    root = dash_root(paths.state_dir())
    if not path.is_absolute() or path.parent.parent != root or not path.name.startswith("p-"):
        return None
    return path if is_real_dir(path) and is_real_dir(path.parent) else None


def end_native(record: registry.SessionRecord, grace: float) -> int:
    what = registry.describe(record)
    channel = control_channel(record)
    if channel is None:
        err(
            "kill",
            f"{what} is a native pane with no usable control channel in its record; "
            "nothing was signalled (its pid is its dashboard's). Close it in its "
            "dashboard: Ctrl+Q in the pane",
        )
        return 1
    from zirv_dash.spawn.client import wait_for_ack, write_request

    try:
        request = write_request(channel, {"kill": record.short})
    except OSError as exc:
        err("kill", f"could not write the stop request for {what}: {exc}")
        return 1
    waited = wait_for_ack(request, timeout=ACK_SECS)
    ack = waited.ack
    if ack is None:
        err("kill", f"{what}: {waited.message}")
        return 1
    if not ack.ok:
        err("kill", f"{what}: the dashboard refused: {ack.reason or 'no reason given'}")
        return 1
    if not _record_gone(record.short, max(grace, 0.0) + ACK_SECS):
        err("kill", f"{what}: the dashboard took the request, but the pane is still listed")
        return 1
    print(
        f"zirv ctx kill: ended native pane {what} (its session closed by its dashboard; "
        "nothing was signalled)"
    )
    return 0


def _record_gone(short: str, timeout: float) -> bool:
    path = registry.record_path(short)
    deadline = time.monotonic() + timeout
    while path.exists():
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_SECS)
    return True
