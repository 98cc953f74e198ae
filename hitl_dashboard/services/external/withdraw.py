"""The caller takes back its own request while nobody has decided it (the MCP gateway's client
cancelled the call): its conversation ends as aborted, its open review leaves the queues, and the
audit trail says who withdrew it. A request already decided is left as it is (Conflict)."""

from __future__ import annotations

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.models import Message, utcnow
from hitl_dashboard.domain.enums import TERMINAL_STATUSES, ConversationStatus, MessageKind
from hitl_dashboard.domain.errors import Conflict
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.text_cuts import cut_visibly
from hitl_dashboard.services.external.follow import own_request
from hitl_dashboard.services.external.views import ApprovalView, approval_view
from hitl_dashboard.services.external_outcomes.outcomes import conversation_settled
from hitl_dashboard.services.live import live
from hitl_dashboard.services.reviews.review_requests import dismiss_open_requests, touched_queues
from hitl_dashboard.services.reviews.tool_decisions import cancel_pending_calls
from hitl_dashboard.services.transactions import transaction
from hitl_dashboard.services.webhooks import webhooks

WITHDRAWN = "withdrawn by its caller"  # the start of the conversation's status_reason


def withdraw_request(actor: Actor, approval_id: int, reason: str) -> ApprovalView:
    reason = cut_visibly((reason or "").strip() or "withdrawn by its caller", 500)
    with transaction() as uow:
        session = uow.session
        row, conversation = own_request(session, actor, approval_id, lock=True)
        if conversation.status in TERMINAL_STATUSES:
            raise Conflict(f"approval {approval_id} was already decided ({conversation.status}); "
                           "it cannot be withdrawn")
        why = f"{WITHDRAWN} {actor.username}: {reason}"
        dismiss_open_requests(session, conversation.id, actor=actor.username, why=why)
        cancel_pending_calls(session, conversation.id, why=why)
        conversation.status, conversation.status_reason = ConversationStatus.ABORTED, why
        session.add(Message(conversation_id=conversation.id, workspace_id=conversation.workspace_id,
                            seq=conversation.next_seq, source=actor.username, kind=MessageKind.SYSTEM,
                            content=f"WITHDRAWN by {actor.username} (the caller): {reason}"))
        conversation.next_seq += 1
        conversation.updated_at = utcnow()
        session.add(conversation)
        append_audit(session, actor=actor.username, action="external.withdrawn", conversation_id=conversation.id,
                     details={"approval_id": approval_id, "request_id": row.caller_request_id, "reason": reason})
        webhooks.conversation_finished(session, conversation)
        conversation_settled(session, conversation)
        roles = touched_queues(session)
        view = approval_view(session, row, conversation)
    live.publish_turn(conversation.id, roles)
    return view
