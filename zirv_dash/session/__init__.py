"""The persistent runtime's wire: protocol v1 frames, the unix-socket server and client.

`protocol` and `methods` are the published types (the schema is generated from
them), `host` is the narrow interface the server needs from an engine, `server`
and `client` are the transport, `ptyhost` is a host running real PTY children
and `cli` holds the `zirv ctx api` / `zirv session` entry functions. Nothing
here imports a UI toolkit.
"""

from __future__ import annotations
