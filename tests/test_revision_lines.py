"""The folded lines of a diff, read when a reviewer expands them (services/conversations/revisions.py,
issue 44): only of a conversation the reader may see; another workspace's answers as missing."""

from __future__ import annotations

import uuid

import pytest
from sqlmodel import select

from hitl_dashboard.db.models import CodeRevision
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import InvalidInput, NotFound
from hitl_dashboard.services.auth.users import create_user, find_actor
from hitl_dashboard.services.conversations.conversations import StartCommand, start_conversation
from hitl_dashboard.services.conversations.revisions import MAX_LINES_READ, compared_pair, revision_lines
from hitl_dashboard.services.workspaces import workspaces
from tests.support.flow import work


def test_folded_lines_are_read_by_range_for_a_reader_of_the_workspace_only(sqlite_url: str):
    tag = uuid.uuid4().hex[:6]
    alpha = workspaces.create_workspace(None, slug=f"alpha-{tag}", name="Alpha")
    beta = workspaces.create_workspace(None, slug=f"beta-{tag}", name="Beta")
    create_user(username=f"a-{tag}", password="pw-a", roles=["security_reviewer"], workspace_id=alpha.id)
    create_user(username=f"b-{tag}", password="pw-b", roles=["product_reviewer"], workspace_id=beta.id)
    member = find_actor(f"b-{tag}")
    conversation = start_conversation(member, StartCommand(task="Add retry with backoff", task_type="code",
                                                           workspace=beta.slug))
    work()
    with UnitOfWork() as uow:
        revision = uow.session.exec(select(CodeRevision).where(CodeRevision.conversation_id == conversation.id)
                                    .limit(1)).one()
        text, rid = revision.content, revision.id
    lines = text.split("\n")

    assert revision_lines(member, conversation.id, rid, 2, 3) == lines[1:4]
    assert revision_lines(None, conversation.id, rid, 1, 10**9) == text.splitlines()[:MAX_LINES_READ]
    assert compared_pair(member, conversation.id, revision.key).new_id == rid

    outsider = find_actor(f"a-{tag}")
    with pytest.raises(NotFound):  # as if it did not exist
        revision_lines(outsider, conversation.id, rid, 1, 3)
    with pytest.raises(NotFound):
        compared_pair(outsider, conversation.id, revision.key)
    with pytest.raises(NotFound):  # a revision of no conversation of that id
        revision_lines(member, conversation.id + 1000, rid, 1, 3)
    with pytest.raises(NotFound):
        revision_lines(member, conversation.id, rid + 1000, 1, 3)
    with pytest.raises(InvalidInput):
        revision_lines(member, conversation.id, rid, 0, 3)
    with pytest.raises(InvalidInput):
        revision_lines(member, conversation.id, rid, 1, 0)
