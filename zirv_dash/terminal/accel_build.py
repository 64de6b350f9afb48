"""Which build of the C accelerator is current: its source's digest.

A module of its own, importing nothing of the package, so the build hook
(``hatch_build.py``) can load it by path in a build environment that has
none of the package's dependencies.
"""

from __future__ import annotations

import os

SOURCE = "_accel.c"
DIGEST_FILE = "_accel.digest"
"""Beside a build: the digest of the source it was built from, written last."""


def source_digest(package_dir: str) -> str:
    """A checksum of the accelerator's C source: it tells an edited source
    from the one a build came from (no security rests on it, and CRC-32 costs
    start-up nothing, where importing hashlib costs milliseconds)."""
    import zlib

    with open(os.path.join(package_dir, SOURCE), "rb") as f:
        return f"crc32:{zlib.crc32(f.read()):08x}"


def build_is_current(package_dir: str) -> bool:
    """A build sits in ``package_dir`` and was made from the source there."""
    try:
        with open(os.path.join(package_dir, DIGEST_FILE), encoding="ascii") as f:
            built_from = f.read().strip()
        return built_from == source_digest(package_dir)
    except OSError:
        return False
