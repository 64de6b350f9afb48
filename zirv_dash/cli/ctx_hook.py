"""`zirv ctx hook stop`: a harness hook reports a turn boundary to its pane.

A hook runs at the end of every turn of the agent, so this module imports only
the turn-signal client (no mailbox, no registry): `zirv_dash.cli.main` dispatches to
it directly, and `ctx` re-exports it.
"""

from __future__ import annotations

import os
import sys

from zirv_dash.cli.ctx_common import err


def hook_main(argv: list[str]) -> int:
    """`zirv ctx hook stop`: post a turn signal to this pane's socket.

    Run from a harness hook (Claude Code's Stop hook), so it never fails the
    hook: outside a pane (no ``ZIRV_CTX_SOCKET``) or with the pane gone it exits
    0 silently. It does not read the hook's JSON on stdin.
    """
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: zirv ctx hook stop", file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    from zirv_dash.attention import turn_signal

    kind = argv[0].lower()
    if kind not in turn_signal.KNOWN_KINDS:
        err("hook", f"unknown hook {argv[0]!r}; the only hook is `stop`")
        return 2
    target = os.environ.get("ZIRV_CTX_SOCKET")
    if target:
        turn_signal.send_turn_signal(target, kind)
    return 0
