"""The repository mailbox: storing, reading and formatting mail, and typing mail
and nudges into panes."""
