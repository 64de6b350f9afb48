"""Context health: how full each agent's conversation is, what it cost, and its rot score."""
