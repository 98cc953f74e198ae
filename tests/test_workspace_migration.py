"""The upgrade to workspaces (alembic 0020, and 0021's Slack links) on a populated database, SQLite and PostgreSQL: a
deployment at 0019 with users, roles, conversations, reviews, decisions, tokens and an audit trail
goes to 0020 with nothing lost and nobody locked out. Everything is in the workspace `default`, the
roles are memberships there (admin stays the instance admin's), tokens still sign in, reviewers
still decide, and the audit chain still verifies, before and after."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import text

from alembic import command
from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.migrations import alembic_config
from hitl_dashboard.domain.audit_chain import PAYLOAD_KEYS, verify_chain
from hitl_dashboard.services.audit import audit
from hitl_dashboard.services.audit.audit_rows import at_text
from hitl_dashboard.services.auth.tokens import create_token_for, resolve_token
from hitl_dashboard.services.conversations.conversation_list import list_conversations
from hitl_dashboard.services.slack import links
from tests.support.flow import actor, decide_as, make_people, only_open_review, queue, start, work

pytestmark = pytest.mark.real_migrations

COUNTED = ("users", "conversations", "messages", "review_requests", "decisions", "api_tokens", "audit_events",
           "team_versions", "code_revisions", "slack_user_links")


def _counts() -> dict[str, int]:
    with get_engine().connect() as conn:
        return {table: conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() for table in COUNTED}


def _chain_ok_without_the_models() -> bool:
    """The chain checked from plain rows (the models describe 0020; this reads any revision)."""
    with get_engine().connect() as conn:
        rows = conn.execute(text("SELECT seq, prev_hash, hash, at, actor, actor_role, action, conversation_id, "
                                 "review_request_id, content_hash, CAST(details AS TEXT) FROM audit_events "
                                 "ORDER BY seq")).all()

    def events():
        for seq, prev, hash_, at, *rest, details in rows:
            values = dict(zip(PAYLOAD_KEYS, [seq, at_text(at), *rest, json.loads(details)], strict=True))
            yield seq, prev, hash_, values

    report = verify_chain(events())
    return report.ok and report.checked == len(rows) > 0


def _roles_of(username: str) -> list[str]:
    with get_engine().connect() as conn:
        value = conn.execute(text("SELECT roles FROM users WHERE username = :u"), {"u": username}).scalar()
    return sorted(json.loads(value) if isinstance(value, str) else value)


def test_a_populated_database_upgrades_to_workspaces_with_nothing_lost(db_url):
    make_people()
    decided = start("Add rate limiting to the login endpoint")
    waiting = start("Write a CSV parser")
    work()
    first = only_open_review(decided).id
    decide_as("alice", first, "approve", idempotency_key="before-upgrade")
    pending = only_open_review(waiting).id
    _, token = create_token_for("frank", name="ci bot")
    links.link_user(None, slack_team_id="T0TEAM", slack_user_id="UALICE", username="alice")
    command.downgrade(alembic_config(), "0019_reviewer_edits")  # the deployment as it was before 0020
    before = _counts()
    assert _chain_ok_without_the_models()
    assert _roles_of("alice") == ["security_reviewer"] and _roles_of("erin") == ["admin"]

    command.upgrade(alembic_config(), "head")

    assert _counts() == before  # nothing lost (and no row made twice)
    with get_engine().connect() as conn:
        workspaces = conn.execute(text("SELECT id, slug FROM workspaces")).all()
        assert [tuple(w) for w in workspaces] == [(1, "default")]
        for table in ("conversations", "review_requests", "webhooks", "team_versions", "slack_user_links"):
            assert conn.execute(text(f"SELECT count(*) FROM {table} WHERE workspace_id IS NULL "
                                     "OR workspace_id <> 1")).scalar() == 0, table
        # Events of a conversation are the default workspace's; the others (users made) the instance's.
        assert conn.execute(text("SELECT count(*) FROM audit_events WHERE conversation_id IS NOT NULL "
                                 "AND workspace_id IS NULL")).scalar() == 0
        members = dict(conn.execute(text(
            "SELECT u.username, m.roles FROM workspace_members m JOIN users u ON u.id = m.user_id")).all())
    assert {name: sorted(json.loads(r) if isinstance(r, str) else r) for name, r in members.items()} == {
        "alice": ["security_reviewer"], "bob": ["product_reviewer"], "carol": ["final_approver"],
        "dave": ["manager"], "frank": ["final_approver", "product_reviewer", "security_reviewer"]}
    assert _roles_of("erin") == ["admin"] and _roles_of("alice") == []  # admin: the instance admin
    assert audit.verify(None).ok and _chain_ok_without_the_models()
    # A Slack link from before acts in default (0021), where alice's role now is.
    assert [(link.slack_user_id, link.username, link.workspace) for link in links.list_links(None)] == [
        ("UALICE", "alice", "default")]

    # Nobody is locked out: the old token signs in, reviewers see and decide their queue.
    assert resolve_token(token).username == "frank"
    assert len(list_conversations(actor("dave"))) == 2
    role = only_open_review(waiting).required_role
    reviewer = {"security_reviewer": "alice", "product_reviewer": "bob", "final_approver": "carol"}[role]
    assert [item.id for item in queue(reviewer, role)] == [pending]
    assert decide_as(reviewer, pending, "approve").review_request_id == pending
    # A decision's key from before the upgrade still replays (not decided twice).
    assert decide_as("alice", first, "approve", idempotency_key="before-upgrade").replayed
    assert audit.verify(None).ok
