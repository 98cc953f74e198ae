"""Use cases. Each takes a unit of work and an actor; authorization is enforced here.

Importing them registers nothing: the SQLAlchemy listeners they rely on (the audit chain's linking,
the anchor publisher, metrics and traces from audit events, the webhook cache) are installed by the
process's start-up, hitl_dashboard/listeners.py."""
