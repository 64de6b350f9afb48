"""Handover: swap a pane's harness or model in place, carrying a handoff packet.

The UI-agnostic half of the swap (inventory §9), one module per concern, all
re-exported here:

- `handover_files`: the CLI request/ack files `<state>/sessions/<short>.handover-req`
  / `.handover-ack` (typed records, upstream JSON; written atomically and private;
  claimed by rename + delete so two readers never both act on one request; garbage
  is removed and reported, never acted on);
- `handover_packet` and `handover_transcript`: the handoff packet: task, cwd + git
  status, recent terminal output and, for claude and codex, the tail of their
  transcript — bounded in size and stripped of control bytes;
- `handover_plan`: `plan_swap`, the successor's argv/env. Same harness that can resume → resume the
  conversation (no packet). Otherwise the packet goes through the target adapter's
  system-prompt channel, else as the first prompt — always as one argv element,
  never through a shell; a `shell` target never gets the packet on argv at all.

A dashboard swap, in order: `check_harness` (or let `plan_swap` do it) →
`build_packet` (with `git_status_summary` and `transcript_tail`) → `plan_swap` →
spawn the successor from `plan.argv` → type `plan.old_quit_sequence` into the old
PTY, wait 5 s, kill → swap the PTY and terminal model, keeping the short id.
"""

from __future__ import annotations

from zirv_dash.handover.files import (
    MAX_STATE_FILE_BYTES,
    HandoverAck,
    HandoverError,
    HandoverFileError,
    HandoverRecordError,
    HandoverRefused,
    HandoverRequest,
    ack_path,
    claim_ack,
    claim_request,
    clear_ack,
    pending_request_shorts,
    request_path,
    sessions_dir,
    withdraw_request,
    write_ack,
    write_request,
)
from zirv_dash.handover.packet import (
    GIT_TIMEOUT_SECS,
    MAX_LINE_CHARS,
    MAX_PACKET_BYTES,
    build_packet,
    clean,
    git_status_summary,
)
from zirv_dash.handover.plan import (
    KICKOFF_PROMPT,
    PACKET_ENV,
    QUIT_GRACE_SECS,
    SwapMode,
    SwapPlan,
    check_harness,
    default_packet_dir,
    plan_swap,
    swap_mode,
)
from zirv_dash.handover.transcript import (
    CODEX_SCAN_FILES,
    MAX_ITEM_CHARS,
    TRANSCRIPT_READ_BYTES,
    claude_project_slug,
    transcript_tail,
)

__all__ = [
    "CODEX_SCAN_FILES",
    "GIT_TIMEOUT_SECS",
    "KICKOFF_PROMPT",
    "MAX_ITEM_CHARS",
    "MAX_LINE_CHARS",
    "MAX_PACKET_BYTES",
    "MAX_STATE_FILE_BYTES",
    "PACKET_ENV",
    "QUIT_GRACE_SECS",
    "TRANSCRIPT_READ_BYTES",
    "HandoverAck",
    "HandoverError",
    "HandoverFileError",
    "HandoverRecordError",
    "HandoverRefused",
    "HandoverRequest",
    "SwapMode",
    "SwapPlan",
    "ack_path",
    "build_packet",
    "check_harness",
    "claim_ack",
    "claim_request",
    "claude_project_slug",
    "clean",
    "clear_ack",
    "default_packet_dir",
    "git_status_summary",
    "pending_request_shorts",
    "plan_swap",
    "request_path",
    "sessions_dir",
    "swap_mode",
    "transcript_tail",
    "withdraw_request",
    "write_ack",
    "write_request",
]
