"""Static-analysis findings on agents' Python code (issue 14): run bandit and ruff on each stored
revision off the agents' hot path, keep the findings as rows, serve them to the diff, the queue,
the gate, the API and the audit trail."""
