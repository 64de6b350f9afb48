"""Tools stay inside the workdir (symlinks resolved) and are bounded."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from zirv_dash.native import tools
from zirv_dash.native.approvals import Policy
from zirv_dash.native.journal import Journal, JournalError
from zirv_dash.native.tools import Workdir, execute


@pytest.fixture
def wd(tmp_path: Path) -> Workdir:
    root = tmp_path / "wd"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("def f():\n    return 1\n")
    (tmp_path / "secret.txt").write_text("outside\n")
    return Workdir(root, sandbox=False)


async def test_read_list_search(wd: Workdir) -> None:
    assert (await execute(wd, "read_file", {"path": "src/a.py"})).output.startswith("def f")
    assert (await execute(wd, "list_dir", {"path": "."})).output == "src/"
    hit = await execute(wd, "search_text", {"pattern": "return 1"})
    assert hit.ok and hit.output == "src/a.py:2: return 1"


@pytest.mark.parametrize("name", ["read_file", "write_file", "edit_file", "list_dir"])
async def test_escapes_are_refused(wd: Workdir, name: str) -> None:
    os.symlink(wd.root.parent / "secret.txt", wd.root / "link.txt")
    args = {"path": "link.txt", "content": "x", "old_text": "outside", "new_text": "in"}
    for path in ("link.txt", "../secret.txt", str(wd.root.parent / "secret.txt")):
        result = await execute(wd, name, {**args, "path": path})
        assert not result.ok and "outside the workdir" in result.output, path
    assert (wd.root.parent / "secret.txt").read_text() == "outside\n"


async def test_write_and_edit_show_a_diff(wd: Workdir) -> None:
    made = await execute(wd, "write_file", {"path": "new/b.txt", "content": "one\ntwo\n"})
    assert made.display == "diff" and "+++ b/new/b.txt" in made.output and "+two" in made.output
    edit = {"path": "src/a.py", "old_text": "return 1", "new_text": "return 2"}
    edited = await execute(wd, "edit_file", edit)
    assert edited.display == "diff" and "-    return 1" in edited.output
    assert "+    return 2" in edited.output
    again = await execute(wd, "edit_file", edit)
    assert not again.ok and "found 0 times" in again.output


async def test_command_runs_in_the_workdir_and_reports_exit(wd: Workdir) -> None:
    result = await execute(wd, "run_command", {"command": "pwd; exit 3"})
    assert not result.ok and str(wd.root) in result.output and "[exit 3]" in result.output


async def test_command_is_time_bounded(wd: Workdir) -> None:
    started = time.monotonic()
    result = await tools.run_command(wd, {"command": "sleep 30 & sleep 30"}, timeout=0.5)
    assert not result.ok and "killed after 0.5s" in result.output
    assert time.monotonic() - started < 5


async def test_command_output_is_bounded(wd: Workdir) -> None:
    result = await execute(wd, "run_command", {"command": "head -c 5000000 /dev/zero | tr '\\0' x"})
    assert len(result.output) < tools.MAX_COMMAND_OUTPUT + 200
    assert "output cut at" in result.output


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bwrap is not installed")
async def test_bwrap_keeps_writes_in_the_workdir(tmp_path: Path) -> None:
    root = tmp_path / "boxed"
    root.mkdir()
    boxed = Workdir(root)
    assert boxed.sandbox and tools.command_argv(boxed, "true")[0].endswith("bwrap")
    probe = await execute(boxed, "run_command", {"command": "true"})
    if not probe.ok:
        pytest.skip(f"bwrap cannot create namespaces here: {probe.output}")
    outside = tmp_path / "escaped.txt"
    result = await execute(
        boxed, "run_command", {"command": f"echo hi > in.txt; echo x > {outside}"}
    )
    assert (root / "in.txt").read_text() == "hi\n"
    assert result.ok and not outside.exists()  # it landed in the sandbox's own /tmp


def test_policy_reads_are_free_mutations_and_unknown_tools_ask() -> None:
    policy = Policy()
    assert not policy.needs_approval("read_file", {"path": "a"})
    assert policy.needs_approval("write_file", {"path": "a"})
    assert policy.needs_approval("teleport", {})
    request = policy.request("c1", "run_command", {"command": "make test"})
    assert request.scope == "run_command make test"
    assert [answer for answer, _ in request.options()] == ["once", "session", "deny"]
    policy.record(request, "session")
    assert not policy.needs_approval("run_command", {"command": "make test"})
    assert policy.needs_approval("run_command", {"command": "make test; rm -rf x"})


def test_journal_is_wal_and_private(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    journal.append("input", id="i", text="hi", steering=False)
    assert journal.journal_mode() == "wal"
    assert (tmp_path / "j.sqlite").stat().st_mode & 0o077 == 0
    assert [e.kind for e in Journal(tmp_path / "j.sqlite").events()] == ["input"]


def test_a_journal_that_is_not_sqlite_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database at all, just some bytes" * 100)
    with pytest.raises(JournalError, match=f"native journal {bad}: cannot be used"):
        Journal(bad)
    assert bad.read_bytes().startswith(b"not a database")  # nothing was lost


def test_dont_ask_again_is_only_offered_for_an_exact_scope() -> None:
    policy = Policy()
    long_args = {"blob": "x" * 500}
    request = policy.request("c9", "mystery_tool", long_args)
    assert [answer for answer, _ in request.options()] == ["once", "deny"]
    policy.record(request, "session")
    assert policy.needs_approval("mystery_tool", long_args)
