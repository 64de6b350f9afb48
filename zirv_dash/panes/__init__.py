"""One supervised child: the pane, its PTY, its process facts, the registry of live sessions."""
