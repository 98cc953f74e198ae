"""Seeding and sign-in helpers for the browser tests."""

from __future__ import annotations

import hashlib
import json
import re
import time
import uuid
from dataclasses import dataclass

from playwright.sync_api import Page, expect
from sqlalchemy import func
from sqlmodel import select

from hitl_dashboard.db.models import CodeRevision, Message, ReviewRequest, User
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.db.workspace_models import Workspace
from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.services.auth.browser_sign_ins import SIGN_IN_COOKIE
from hitl_dashboard.services.auth.tokens import issue_token
from hitl_dashboard.services.auth.users import actor_of, insert_user, put_membership
from hitl_dashboard.services.conversations.conversations import StartCommand, add_conversation
from hitl_dashboard.services.reviews.decide import record_decision
from hitl_dashboard.services.teams.versions import sync_workspace
from tests.e2e.app_process import RunningApp

PASSWORD = "e2e-password"
# The sign-in page, whatever it was sent there with (?notice=expired&next=/conversations, say).
LOGIN_PAGE = re.compile(r"/login(\?.*)?$")
# A code task of the built-in team: planner, coder, then the security review (the first sign-off).
DEFAULT_CODE_TASK = "Add rate limiting to the login endpoint"


def make_user(app: RunningApp, *roles: str, prefix: str = "user", workspace_id: int | None = None) -> str:
    """A user with these roles (admin: the instance's; the others in `workspace_id`, else the default)."""
    name = f"{prefix}-{uuid.uuid4().hex[:6]}"
    with UnitOfWork(app.engine) as uow:  # the app's database: the step, on its engine
        insert_user(uow, username=name, password=PASSWORD, roles=list(roles), workspace_id=workspace_id)
        uow.commit()
    return name


def make_workspace(app: RunningApp, prefix: str, name: str | None = None) -> tuple[int, str]:
    """A new workspace in the app's database, with the built-in teams: (id, slug)."""
    slug = f"{prefix}-{uuid.uuid4().hex[:6]}"
    with UnitOfWork(app.engine) as uow:
        workspace = Workspace(slug=slug, name=name or prefix.title())
        uow.session.add(workspace)
        uow.session.flush()
        sync_workspace(uow.session, workspace.id)
        uow.commit()
        return workspace.id, slug


def set_member(app: RunningApp, workspace_id: int, username: str, roles: list[str]) -> None:
    """The user's roles in the workspace (none: removed), in the app's database."""
    with UnitOfWork(app.engine) as uow:
        user = uow.session.exec(select(User).where(User.username == username)).one()
        put_membership(uow.session, user_id=user.id, workspace_id=workspace_id, roles=roles)
        uow.commit()


def start(app: RunningApp, username: str, task: str, task_type: str = "code",
          model_routing: dict | None = None, workspace: str | None = None, title: str | None = None) -> int:
    # The app's database, not this process's settings: the step in a unit of work on its engine.
    with UnitOfWork(app.engine) as uow:
        user = uow.session.exec(select(User).where(User.username == username)).one()
        command = StartCommand(task=task, task_type=task_type, model_routing=model_routing or {},
                               workspace=workspace, title=title)
        conversation = add_conversation(uow.session, actor_of(user), command)
        uow.commit()
        return conversation.id


def decide_as(app: RunningApp, username: str, review: ReviewRequest, action: str, **kw) -> None:
    """`username` decides `review` in the app's database, as the decide use case's step does."""
    with UnitOfWork(app.engine) as uow:
        user = uow.session.exec(select(User).where(User.username == username)).one()
        record_decision(uow, actor_of(user), review.id, DecisionInput(Action(action), **kw))
        uow.commit()


def api_token(app: RunningApp, username: str, *, name: str = "e2e", scope: str = "full") -> str:
    """A fresh API token of `username` (scope "approvals": one that may only ask for approvals), issued in
    the app's database."""
    with UnitOfWork(app.engine) as uow:
        user = uow.session.exec(select(User).where(User.username == username)).one()
        _, token = issue_token(uow, user_id=user.id, name=name, scope=scope)
        uow.commit()
    return token


def open_reviews(app: RunningApp, conversation_id: int) -> list[ReviewRequest]:
    with UnitOfWork(app.engine) as uow:
        return list(uow.session.exec(
            select(ReviewRequest).where(ReviewRequest.conversation_id == conversation_id,
                                        ReviewRequest.status.in_(["pending", "claimed"]))
        ))


@dataclass(frozen=True)
class Waiting:
    """A code conversation waiting for its security review: its id, that open review, who started it."""

    cid: int
    review: ReviewRequest
    starter: str


def waiting_for_security_review(app: RunningApp, task: str = DEFAULT_CODE_TASK, *, starter: str | None = None,
                                workspace: str | None = None, title: str | None = None,
                                model_routing: dict | None = None, timeout: float = 30.0) -> Waiting:
    """A code conversation of its own, started by `starter` (else a new product reviewer of the default
    workspace: give a starter of your own to start in another `workspace`), once its agents have stopped
    at the security review."""
    starter = starter or make_user(app, "product_reviewer", prefix="dev")
    cid = start(app, starter, task, model_routing=model_routing, workspace=workspace, title=title)
    [review] = wait_for(lambda: [r for r in open_reviews(app, cid) if r.required_role == "security_reviewer"],
                        timeout=timeout, what=f"the security review of conversation {cid}")
    return Waiting(cid, review, starter)


def add_revision(app: RunningApp, conversation_id: int, key: str, content: str, language: str = "python") -> None:
    """The next revision of file `key` (its first if it is new), as an agent's latest message proposed it."""
    with UnitOfWork(app.engine) as uow:
        session = uow.session
        number = session.exec(select(func.max(CodeRevision.number)).where(
            CodeRevision.conversation_id == conversation_id, CodeRevision.key == key)).one()
        message_id = session.exec(select(func.max(Message.id)).where(Message.conversation_id == conversation_id)).one()
        session.add(CodeRevision(conversation_id=conversation_id, message_id=message_id, key=key,
                                 number=(number or 0) + 1, language=language, content=content,
                                 content_hash=hashlib.sha256(content.encode()).hexdigest()))
        uow.commit()


def sign_in(page: Page, app: RunningApp, username: str, lands_on: str = "**/queue*") -> None:
    """Through the sign-in form (posted by the browser; the HttpOnly cookie comes back). A sign-in this
    browser still holds is dropped first, or the sign-in page would send it straight on."""
    page.context.clear_cookies(name=SIGN_IN_COOKIE)
    page.goto(app.base_url + "/login")
    page.fill("#username", username)
    page.fill("#password", PASSWORD)
    page.click("#sign-in")
    page.wait_for_url(lands_on, timeout=20_000)
    expect(page.locator("#signed-in-user")).to_have_text(username)


def wait_for(predicate, timeout: float = 30.0, what: str = "condition"):
    """Poll until predicate() is truthy; returns its value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def state_deltas(frames: list[str]) -> list[dict]:
    """The state deltas among Socket.IO frames ('42/_event,["event",{"delta": ...}]')."""
    deltas = []
    for frame in frames:
        head, _, body = frame.partition(",")
        if head == "42/_event" and body.startswith("["):
            payload = json.loads(body)
            if payload[0] == "event" and payload[1].get("delta"):
                deltas.append(payload[1]["delta"])
    return deltas


def record_frames(page: Page) -> list[str]:
    """Every WebSocket frame the page receives from now on, as text."""
    frames: list[str] = []

    def on_socket(socket) -> None:
        socket.on("framereceived", lambda payload: frames.append(
            payload if isinstance(payload, str) else payload.decode(errors="replace")))

    page.on("websocket", on_socket)
    return frames
