"""External approval requests (issue 31): agents that run elsewhere ask for a decision over HTTP."""
