"""Where a compiled build of the terminal model lives, and whether to use it.

The model is pure Python and ``mypy --strict`` clean, so mypyc can compile it
as it is (``hatch_build.py`` does, when a C compiler is there).  The compiled
modules go to ``_compiled/`` beside the sources with a digest of the sources
they were built from.  The package puts that directory first on its
``__path__`` only while the digest still matches, so an edited source is
never shadowed by a stale build: it simply runs as Python until the next
install.  ``ZIRV_PURE_PYTHON=1`` forces the Python modules (the tests run
both ways).

This module and ``__init__`` are never compiled: they decide.
"""

from __future__ import annotations

import os

BUILD_DIR = "_compiled"
DIGEST_FILE = "SOURCES.sha256"
# Not compiled: they choose the build (and a compiled __init__ could not).
PURE_ONLY = frozenset({"__init__.py", "compiled.py"})


def compiled_sources(package_dir: str) -> list[str]:
    """File names of the modules mypyc compiles, sorted."""
    return sorted(
        name for name in os.listdir(package_dir) if name.endswith(".py") and name not in PURE_ONLY
    )


def sources_digest(package_dir: str) -> str:
    """SHA-256 over the names and contents of the compiled modules' sources."""
    import hashlib  # only when a build is there: CLI start-up does not pay for it

    h = hashlib.sha256()
    for name in compiled_sources(package_dir):
        h.update(name.encode() + b"\0")
        with open(os.path.join(package_dir, name), "rb") as f:
            h.update(f.read())
        h.update(b"\0")
    return h.hexdigest()


def build_dir(package_dir: str) -> str | None:
    """The compiled build's directory if it matches the sources, else None."""
    if os.environ.get("ZIRV_PURE_PYTHON"):
        return None
    path = os.path.join(package_dir, BUILD_DIR)
    try:
        with open(os.path.join(path, DIGEST_FILE), encoding="ascii") as f:
            built_from = f.read().strip()
    except OSError:
        return None
    if built_from != sources_digest(package_dir):
        return None  # sources edited since: run them, not the old build
    return path
