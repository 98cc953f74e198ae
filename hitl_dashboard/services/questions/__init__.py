"""A reviewer's questions to the agent that produced the work under review (issue 14)."""
