"""What an external approval request came to, its signed callback and its caller's argument schema:
the low half of external approvals, which the decide, escalation and abort paths settle through."""
