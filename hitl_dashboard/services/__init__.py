"""Use cases. Each takes a unit of work and an actor; authorization is enforced here."""

# Every writer of the audit trail goes through a service, so installing the anchor publisher here
# guarantees each committed audit head is published, whichever process (web, worker, CLI) commits it.
from hitl_dashboard.services.audit import audit_anchor as _audit_anchor

_audit_anchor.install()

from hitl_dashboard.services.webhooks import audit_head_webhook as _audit_head_webhook  # noqa: E402

_audit_head_webhook.install()

# Decisions and overdue reviews are counted (metrics) and traced from the audit events a transaction writes.
from hitl_dashboard.services.observability import audit_metrics as _audit_metrics  # noqa: E402
from hitl_dashboard.services.observability import audit_traces as _audit_traces  # noqa: E402

_audit_metrics.install()
_audit_traces.install()
