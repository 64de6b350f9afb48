"""Every `zirv …` verb: its parser and its entry point (nothing here imports Textual)."""
