"""The harnesses zirv runs: adapters, their gate, the model catalogue, the demo agent."""
