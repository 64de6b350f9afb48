"""Handover: swap a pane's harness or model in place, carrying a handoff packet.

One module per concern (inventory §9); import from the one that defines a name:

- `files`: the CLI request/ack files `<state>/sessions/<short>.handover-req` /
  `.handover-ack` (typed records, upstream JSON; written atomically and private;
  claimed by rename + delete so two readers never both act on one request; garbage
  is removed and reported, never acted on);
- `packet` and `transcript`: the handoff packet: task, cwd + git status, recent
  terminal output and, for claude and codex, the tail of their transcript — bounded
  in size and stripped of control bytes;
- `plan`: `plan_swap`, the successor's argv/env. Same harness that can resume → resume
  the conversation (no packet). Otherwise the packet goes through the target adapter's
  system-prompt channel, else as the first prompt — always as one argv element, never
  through a shell; a `shell` target never gets the packet on argv at all;
- `swap`: the dashboard's pipeline.

A dashboard swap, in order: `check_harness` (or let `plan_swap` do it) →
`build_packet` (with `git_status_summary` and `transcript_tail`) → `plan_swap` →
spawn the successor from `plan.argv` → type `plan.old_quit_sequence` into the old
PTY, wait 5 s, kill → swap the PTY and terminal model, keeping the short id.
"""
