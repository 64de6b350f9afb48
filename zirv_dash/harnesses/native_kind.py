"""The native pane kind's name and placeholder harness facts (no imports of note).

A native pane is zirv's own conversation session (`zirv_dash.runtime.native_pane`),
not a harness CLI: where a harness name goes (the spawn protocol's `agent`, the
roster, the sidebar) it is "native", upstream's reserved name for it.
"""

from __future__ import annotations

from zirv_dash.harnesses.adapters import Adapter

NATIVE = "native"
NATIVE_ADAPTER = Adapter(name=NATIVE, binary="", builtin=True)
"""A native pane has no command line, quit bytes, model flag or resume flag."""
