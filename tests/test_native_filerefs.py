"""`@path` completion and references stay inside the workdir and are bounded."""

from __future__ import annotations

import os
from pathlib import Path

from zirv_dash.native.filerefs import MAX_REF_BYTES, completions, resolve_refs
from zirv_dash.native.tools import Workdir


def workdir(tmp_path: Path) -> Workdir:
    root = tmp_path / "wd"
    for rel in ("src/app.py", "src/deep/x.py", "node_modules/m.js", ".hidden/h", "README.md"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"content of {rel}\n")
    (tmp_path / "outside.txt").write_text("secret\n")
    os.symlink(tmp_path / "outside.txt", root / "link.txt")
    return Workdir(root, sandbox=False)


def test_completion_walks_breadth_first_and_skips_what_it_should(tmp_path: Path) -> None:
    wd = workdir(tmp_path)
    labels = [label for label, _ in completions(wd, "look at @")]
    assert labels == ["@README.md", "@src/", "@src/app.py", "@src/deep/", "@src/deep/x.py"]
    assert [label for label, _ in completions(wd, "see @src/d")] == ["@src/deep/", "@src/deep/x.py"]
    assert completions(wd, "@src/app.py ") == []  # a finished token offers nothing
    assert [label for label, _ in completions(wd, "/c")] == ["/clear", "/compact"]


def test_references_attach_contained_files_only(tmp_path: Path) -> None:
    wd = workdir(tmp_path)
    (wd.root / "big.txt").write_text("x" * (MAX_REF_BYTES + 1))
    refs, notes = resolve_refs(wd, "fix @src/app.py and @link.txt and @../outside.txt @big.txt")
    assert [(r.path, r.content) for r in refs] == [("src/app.py", "content of src/app.py\n")]
    assert len(notes) == 3 and all("outside" in n or "larger" in n for n in notes)


def test_a_hard_linked_file_is_not_attached(tmp_path: Path) -> None:
    wd = workdir(tmp_path)
    os.link(tmp_path / "outside.txt", wd.root / "hard.txt")
    refs, notes = resolve_refs(wd, "look at @hard.txt")
    assert refs == [] and "hard links" in notes[0] and "not attached" in notes[0]


def test_a_file_name_with_escapes_completes_as_visible_text(tmp_path: Path) -> None:
    wd = workdir(tmp_path)
    (wd.root / "\x1b]2;x\x07.txt").write_text("x\n")
    labels = [label for label, _ in completions(wd, "@\x1b")]
    assert labels == ["@␛]2;x␇.txt"]
