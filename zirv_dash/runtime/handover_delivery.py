"""How a swap's successor is given its handoff packet, in the words both ends use.

The dashboard answers a CLI handover request with these words (`runtime.swaps`)
and `zirv handover --dry-run` prints them; the keys are `handover.swap_mode`'s.
"""

from __future__ import annotations

DELIVERY = {
    "resume": "resume the same conversation (no packet)",
    "system_prompt": "handoff packet through the harness's system-prompt channel",
    "first_prompt": "handoff packet as the first prompt (one argv element)",
}
