"""The folded lines of a diff, read when a reviewer expands them (services/conversations/revisions.py,
issue 44): only of a conversation the reader may see; another workspace's answers as missing."""

from __future__ import annotations

import asyncio
import inspect
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from sqlmodel import select

from hitl_dashboard.db.models import CodeRevision
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.errors import InvalidInput, NotFound, PermissionDenied
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.services.auth.users import create_user, find_actor
from hitl_dashboard.services.conversations.conversations import StartCommand, start_conversation
from hitl_dashboard.services.conversations.revisions import MAX_LINES_READ, compared_pair, revision_lines
from hitl_dashboard.services.workspaces import workspaces
from hitl_dashboard.ui.states import diff_folds
from hitl_dashboard.ui.states.diff_folds import DiffFoldsState, UnfoldedLines
from tests.support.flow import work


@dataclass
class Setup:
    member: Actor
    outsider: Actor
    conversation_id: int
    revision: CodeRevision


@pytest.fixture
def setup(sqlite_url: str) -> Setup:
    """A conversation of workspace beta with its first revision; a member of beta and one of alpha."""
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
    return Setup(member, find_actor(f"a-{tag}"), conversation.id, revision)


def test_folded_lines_are_read_by_range_for_a_reader_of_the_workspace_only(setup: Setup):
    member, outsider, revision, cid = setup.member, setup.outsider, setup.revision, setup.conversation_id
    text, rid = revision.content, revision.id
    assert rid is not None
    lines = text.split("\n")

    assert revision_lines(member, cid, rid, 2, 3) == lines[1:4]
    assert revision_lines(None, cid, rid, 1, 10**9) == text.splitlines()[:MAX_LINES_READ]
    assert compared_pair(member, cid, revision.key).new_id == rid

    with pytest.raises(NotFound):  # as if it did not exist
        revision_lines(outsider, cid, rid, 1, 3)
    with pytest.raises(NotFound):
        compared_pair(outsider, cid, revision.key)
    with pytest.raises(NotFound):  # a revision of no conversation of that id
        revision_lines(member, cid + 1000, rid, 1, 3)
    with pytest.raises(NotFound):
        revision_lines(member, cid, rid + 1000, 1, 3)
    with pytest.raises(InvalidInput):
        revision_lines(member, cid, rid, 0, 3)
    with pytest.raises(InvalidInput):
        revision_lines(member, cid, rid, 1, 0)


def _expand(state: DiffFoldsState, *args: Any) -> list:
    """The event as a browser's frame runs it; what it yielded (a toast)."""
    result = state.event_handlers["expand"].fn(state, *args)
    yielded: list = []

    async def drain() -> None:
        async for item in result:
            yielded.append(item)
    assert inspect.isasyncgen(result)
    asyncio.run(drain())
    return yielded


def _tab(monkeypatch: pytest.MonkeyPatch, actor: Actor | None, conversation_id: int) -> DiffFoldsState:
    """A tab on /conversations/<conversation_id>, signed in as `actor` (None: signed out)."""
    async def signed_in(self) -> Actor:
        if actor is None:
            raise PermissionDenied("sign in")
        return actor
    monkeypatch.setattr(DiffFoldsState, "_signed_in_actor", signed_in)
    monkeypatch.setattr(diff_folds, "path_id", lambda _path: conversation_id)
    return DiffFoldsState(_reflex_internal_init=True)


def test_expanding_a_fold_is_checked_like_every_read(setup: Setup, monkeypatch: pytest.MonkeyPatch):
    rid, cid, lines = setup.revision.id, setup.conversation_id, setup.revision.content.split("\n")
    assert rid is not None
    tab = _tab(monkeypatch, setup.member, cid)
    forged_calls = (("x", 1, 1), (rid, -1, 5), (rid, 1, 0), ([rid], 1, 1), (rid, None, 2), (rid, 10**30, 1),
                    (rid, 10**6, 1), (10**40, 1, 1))
    for forged in forged_calls:
        _expand(tab, *forged)
    assert tab.unfolded == []
    _expand(tab, rid, 2, 3)
    assert tab.unfolded == [UnfoldedLines(rid, 2, lines[1:4])]
    _expand(tab, rid, 3, 1)  # already here: not read again
    assert len(tab.unfolded) == 1

    outsider = _tab(monkeypatch, setup.outsider, cid)  # another workspace's conversation: missing
    assert _expand(outsider, rid, 2, 3) and outsider.unfolded == []
    other = _tab(monkeypatch, setup.member, cid + 1000)  # this revision is not of the tab's conversation
    assert _expand(other, rid, 2, 3) and other.unfolded == []
    signed_out = _tab(monkeypatch, None, cid)
    assert _expand(signed_out, rid, 2, 3) == [] and signed_out.unfolded == []
