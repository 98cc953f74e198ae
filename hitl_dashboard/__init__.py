"""HITL Dashboard: human-in-the-loop review for multi-agent LLM work."""

__version__ = "0.1.0"
