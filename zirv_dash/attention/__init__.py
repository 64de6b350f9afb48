"""Who needs you: the attention tracker, prompt patterns, turn signals and notices."""
