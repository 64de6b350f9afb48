"""The dashboard side of the channel: claim request files, decode them, answer them.

A claim is made by renaming `req-<id>.json` to `claim-req-<id>`, so two
dashboards never take the same request. Nothing here raises on bad input: a
claim that cannot be used carries the refusal reason in `Claimed.error`.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from zirv_dash import paths
from zirv_dash.spawn.channel import REQ_ID_RE, ack_path, claim_path, log, read_fd, remove_tree
from zirv_dash.spawn.protocol import (
    MAX_REQUEST_BYTES,
    RequestError,
    SpawnAck,
    SpawnRequest,
    decode_kill,
    decode_request,
    show,
)

if TYPE_CHECKING:
    from zirv_dash.spawn.policy import Decision

CLAIM_BATCH = 64
SWEEP_BUDGET = 256
"""At most this many claims per dashboard sweep over all channels (the rest wait)."""


@dataclass
class Claimed:
    """One claimed request. Exactly one of `request`, `kill`, `error` is set."""

    channel: Path
    req_id: str
    path: Path
    request: SpawnRequest | None = None
    kill: str | None = None
    error: str | None = None
    decision: Decision | None = None
    """Set once validated and accepted, when launching happens in a later step."""

    @property
    def ackable(self) -> bool:
        return REQ_ID_RE.match(self.req_id) is not None

    def release(self) -> None:
        """Remove the claim file (done after the ack is written, or on refusal)."""
        remove_tree(self.path)


def claim_requests(
    channel_dir: Path, cap: int = MAX_REQUEST_BYTES, limit: int = CLAIM_BATCH
) -> list[Claimed]:
    """Claim up to `limit` `req-*.json` files in `channel_dir` by rename and parse them.

    Never raises. A claim that cannot be used is deleted straight away and
    returned with `error` set so the dashboard can ack the refusal and log it.
    The batch limit keeps one sweep short under a flood; the rest wait for the
    next sweep.
    """
    out: list[Claimed] = []
    try:
        names = sorted(os.listdir(channel_dir))
    except OSError:
        return out
    for name in names:
        if len(out) >= limit:
            break
        if not (name.startswith("req-") and name.endswith(".json")) or len(name) <= 9:
            continue
        rid = name[len("req-") : -len(".json")]
        src = channel_dir / name
        if REQ_ID_RE.match(rid) is None:
            remove_tree(src)
            log.warning("spawn request with a garbage name dropped: %s", show(name))
            out.append(
                Claimed(channel_dir, rid, src, error=f"request name {show(name)} is not valid")
            )
            continue
        dst = claim_path(channel_dir, rid)
        try:
            os.rename(src, dst)
        except OSError:
            continue  # another claimer won, or the requester withdrew it
        claimed = _parse_claim(channel_dir, rid, dst, cap)
        if claimed.error is not None:
            claimed.release()
            log.warning("spawn request %s refused: %s", rid, claimed.error)
        out.append(claimed)
    return out


def _parse_claim(channel: Path, rid: str, path: Path, cap: int) -> Claimed:
    def bad(reason: str) -> Claimed:
        return Claimed(channel, rid, path, error=reason)

    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return bad("request is a symlink, not a regular file")
        return bad(f"request could not be opened ({exc.strerror})")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return bad("request is not a regular file")
        if st.st_size > cap:
            return bad(f"request is too large ({st.st_size} bytes; limit {cap})")
        data = read_fd(fd, cap)
    except OSError as exc:
        return bad(f"request could not be read ({exc.strerror})")
    finally:
        os.close(fd)
    if len(data) > cap:
        return bad(f"request is too large (over {cap} bytes)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return bad("request is not UTF-8 text")
    try:
        obj = json.loads(text)
    except RecursionError:
        return bad("malformed JSON: nested too deeply")
    except ValueError as exc:
        return bad(f"malformed JSON: {show(str(exc), 120)}")
    source = str(path)
    try:
        if isinstance(obj, dict) and "kill" in obj and not ("agent" in obj and "prompt" in obj):
            return Claimed(channel, rid, path, kill=decode_kill(obj, source))
        req = decode_request(obj, source)
    except RequestError as exc:
        return bad(str(exc))
    except (RecursionError, ValueError, TypeError) as exc:  # belt and braces
        return bad(f"request could not be read: {show(str(exc), 120)}")
    return Claimed(channel, rid, path, request=req)


def write_ack(channel_dir: Path, req_id: str, ack: SpawnAck) -> None:
    """Write `ack-req-<id>.json` atomically (0600). Raises OSError on failure."""
    if REQ_ID_RE.match(req_id) is None:
        raise OSError(errno.EINVAL, f"refusing to ack request id {show(req_id, 40)}")
    paths.atomic_write(
        ack_path(channel_dir, req_id), json.dumps(ack.to_json(), separators=(",", ":"))
    )


def answer(claimed: Claimed, ack: SpawnAck) -> str | None:
    """Ack a claim, then release it. Returns an error text if the ack could not be
    written; a successful spawn then keeps its claim (upstream `spawn ack: {e}`)."""
    if not ack.ok:
        log.warning("spawn request %s refused: %s", claimed.req_id, ack.reason)
    try:
        if claimed.ackable:
            write_ack(claimed.channel, claimed.req_id, ack)
    except OSError as exc:
        if not ack.ok:
            claimed.release()
        return f"spawn ack: {exc}"
    claimed.release()
    return None
