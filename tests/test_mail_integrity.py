"""The mailbox under pressure: `[mail] keep` holds for concurrent senders, a
message id is used once, consumed mail is pruned by the same keep, and the MCP
bridge refuses arguments out of range instead of bending them."""

from __future__ import annotations

import subprocess
import sys
import threading
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.test_mcp_bridge import serve
from zirv_dash import paths
from zirv_dash.cli import mcp_bridge
from zirv_dash.mail import mailbox as mail
from zirv_dash.mail import store as mail_store

NOW = 1_700_000_000


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    return root


@pytest.fixture
def bridge(repo: Path) -> mcp_bridge.Bridge:
    return mcp_bridge.open_bridge(repo, None)


def box(bridge: mcp_bridge.Bridge) -> Path:
    return paths.state_dir() / "mail" / bridge.slug


def test_keep_holds_for_a_hundred_concurrent_senders(bridge: mcp_bridge.Bridge) -> None:
    start = threading.Barrier(100)

    def one(i: int) -> str:
        start.wait()
        try:
            mail.store(bridge.slug, f"note {i}", from_session="operator", from_agent="t", keep=50)
        except mail.MailError as exc:
            assert "already holds 50 messages" in str(exc)
            return "refused"
        return "stored"

    with ThreadPoolExecutor(max_workers=100) as pool:
        outcomes = list(pool.map(one, range(100)))
    assert outcomes.count("stored") == 50 and outcomes.count("refused") == 50
    assert len(list(box(bridge).glob("*.md"))) == 50


def test_keep_holds_for_concurrent_processes(bridge: mcp_bridge.Bridge, repo: Path) -> None:
    # Separate interpreters, as `zirv ctx send` runs: the lock is the kernel's.
    script = (
        "import sys\nfrom zirv_dash.mail import mailbox as mail\n"
        "ok = 0\n"
        "for i in range(10):\n"
        "    try:\n"
        "        mail.store(sys.argv[1], 'n', from_session='operator', from_agent='t', keep=25)\n"
        "        ok += 1\n"
        "    except mail.MailError:\n"
        "        pass\n"
        "print(ok)\n"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, bridge.slug], stdout=subprocess.PIPE)
        for _ in range(6)
    ]
    stored = 0
    for proc in procs:
        out, _ = proc.communicate(timeout=50)
        assert proc.returncode == 0
        stored += int(out)
    assert stored == 25 and len(list(box(bridge).glob("*.md"))) == 25


def test_mail_send_never_returns_an_id_already_used(
    bridge: mcp_bridge.Bridge, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every note in one second, as a fast agent sends them; each read at once.
    monkeypatch.setattr(mail_store, "time", types.SimpleNamespace(time=lambda: NOW + 0.5))
    ids = []
    for i in range(5):
        sent = mcp_bridge.send(bridge, f"note {i}")["data"]["id"]
        ids.append(sent)
        (message,) = mail.list_messages(bridge.slug)
        assert message.id == sent and mail.consume(message)
    assert len(set(ids)) == 5, ids
    assert sorted(p.name for p in (box(bridge) / "read").iterdir()) == sorted(ids)


def test_consumed_mail_is_pruned_by_keep_but_never_the_newest(
    bridge: mcp_bridge.Bridge,
) -> None:
    for i in range(8):
        message = mail.store(
            bridge.slug, f"old {i}", from_session="operator", from_agent="t", now=NOW + i
        )
        assert mail.consume(message)
    assert len(list((box(bridge) / "read").iterdir())) == 8
    mail.store(bridge.slug, "new", from_session="operator", from_agent="t", keep=3)
    left = sorted(p.name for p in (box(bridge) / "read").iterdir())
    assert left == [f"{NOW + i}-operator.md" for i in (5, 6, 7)]  # the newest `keep`
    # Mail consumed moments ago stays whatever keep says: its name holds its id.
    fresh = []
    for i in range(3):
        message = mail.store(bridge.slug, f"fresh {i}", from_session="operator", from_agent="t")
        assert mail.consume(message)
        fresh.append(message.path.name)
    mail.prune(bridge.slug, keep=1)
    assert sorted(p.name for p in (box(bridge) / "read").iterdir()) == sorted(fresh)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        ({"limit": -5}, "limit must be a whole number from 1 to 32 (got -5)"),
        ({"limit": 0}, "limit must be"),
        ({"limit": 33}, "limit must be"),
        ({"max_bytes": -1}, "max_bytes must be a whole number from 4 to 4096"),
    ],
)
def test_mail_inbox_refuses_bounds_it_would_have_bent(
    bridge: mcp_bridge.Bridge, args: dict[str, int], words: str
) -> None:
    with pytest.raises(mcp_bridge.BridgeError, match=words.replace("(", r"\(").replace(")", r"\)")):
        mcp_bridge.inbox(bridge, **args)


async def test_a_negative_limit_is_a_tool_error_over_mcp(repo: Path) -> None:
    async with serve(repo) as session:
        result = await session.call_tool("mail_inbox", {"limit": -5})
        fine = await session.call_tool("mail_inbox", {"limit": 5})
    assert result.is_error
    text = " ".join(getattr(c, "text", "") for c in result.content)
    assert "limit must be a whole number from 1 to 32 (got -5)" in text
    assert not fine.is_error
