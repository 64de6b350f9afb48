"""The dashboard's state without UI: panes, focus, errors, the restore roster,
broadcast, selection."""
