"""The sign-off steps in words (ui/views/conversation_view.sign_off_steps): an aborted conversation
waits for no one, so no step of it reads "pending" (issue 32)."""

from __future__ import annotations

from types import SimpleNamespace

from hitl_dashboard.ui.views.conversation_view import sign_off_steps

CHAIN = ("security_reviewer", "product_reviewer", "final_approver")


def _progress(approved: int) -> list[SimpleNamespace]:
    return [SimpleNamespace(role=role, approved=i < approved) for i, role in enumerate(CHAIN)]


def _states(approved: int, status: str) -> list[str]:
    return [step.state for step in sign_off_steps(_progress(approved), status)]


def test_a_waiting_conversation_reads_approved_then_pending():
    assert _states(1, "awaiting_review") == ["approved", "pending", "pending"]


def test_an_aborted_conversation_reads_where_it_stopped_and_what_was_not_needed():
    assert _states(0, "aborted") == ["aborted", "not needed", "not needed"]
    assert _states(1, "aborted") == ["approved", "aborted", "not needed"]
    assert _states(3, "aborted") == ["approved", "approved", "approved"]
