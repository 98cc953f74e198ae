"""hitl_dashboard.client: ask the HITL Dashboard's reviewers before an agent acts.

Imports nothing of the server (an import-linter contract keeps it so): only httpx and tenacity.
docs/external-approvals.md shows a first approval in a few lines, and examples for a plain
function, a LangGraph node and an AutoGen tool."""

from hitl_dashboard.client.aclient import AsyncApprovalClient
from hitl_dashboard.client.approvals import arequire_approval, require_approval
from hitl_dashboard.client.client import ApprovalClient
from hitl_dashboard.client.errors import (
    ApprovalDenied,
    ApprovalError,
    ApprovalTimeout,
    RequestIdConflict,
    RevisionRequested,
)
from hitl_dashboard.client.wire import Approval, Ask

__all__ = [
    "Approval", "ApprovalClient", "ApprovalDenied", "ApprovalError", "ApprovalTimeout", "Ask",
    "AsyncApprovalClient", "RequestIdConflict", "RevisionRequested", "arequire_approval", "require_approval",
]
