"""Workspaces keep their work apart (issue 41), over the real HTTP API in process, on SQLite and
PostgreSQL: every API operation is tried by people of workspace alpha on the things of workspace
beta (a conversation, its review, revision and question, a team, an external approval request, the
workspace itself), and nothing of beta may show in any answer, nor change. A thing of another
workspace is answered exactly as a thing that does not exist. The routes come from the app itself,
so a route added later is walked too.

Positive controls: a member of beta, of both, and the instance admin do see beta's marker where
they should, so the walk would notice a leak."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from sqlmodel import func, select
from starlette.testclient import TestClient

from hitl_dashboard.db.models import AuditEvent, CodeRevision, Conversation, ReviewRequest
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.auth.tokens import create_token
from hitl_dashboard.services.auth.users import create_user, find_actor
from hitl_dashboard.services.conversations.conversations import StartCommand, start_conversation
from hitl_dashboard.services.questions.questions import ask_question
from hitl_dashboard.services.teams.team_queries import export_team, save_team
from hitl_dashboard.services.workspaces import workspaces
from tests.support.external_api import bearer, tool_request
from tests.support.flow import work
from tests.support.in_process_api import in_process_api
from tests.test_api_auth_first import api_routes, needs_caller

MISSING = {"conversation_id": "987654", "review_id": "987653", "revision_id": "987652", "question_id": "987651",
           "approval_id": "987650", "link_id": "987649", "name": "no-such-team", "slug": "no-such-place",
           "username": "nobody-here"}
# A body each operation accepts in form, so the request reaches the lookup of what it names.
BODIES = {
    ("POST", "/api/conversations/{conversation_id}/abort"): {"reason": "probe"},
    ("POST", "/api/conversations/{conversation_id}/fork"): {"turn": 1},
    ("POST", "/api/conversations/{conversation_id}/replay"): {"turn": 1},
    ("POST", "/api/reviews/{review_id}/decision"): {"action": "approve"},
    ("POST", "/api/reviews/{review_id}/questions"): {"question": "probe?"},
    ("PUT", "/api/teams/{name}"): {"yaml": "name: {name}\n"},
    ("PATCH", "/api/workspaces/{slug}"): {"name": "Renamed"},
    ("PUT", "/api/workspaces/{slug}/members/{username}"): {"roles": ["security_reviewer"]},
    ("POST", "/api/external/approvals/{approval_id}/result"): {"status": "succeeded", "result": "probe"},
}


@dataclass
class Beta:
    marker: str
    ids: dict[str, str]
    tokens: dict[str, str]  # persona -> token


def _person(username: str, roles: list[str], workspace_id: int | None, *, scope: str = "full") -> str:
    user = create_user(username=username, password="pw-" + username, roles=roles, workspace_id=workspace_id)
    return create_token(user_id=user.id, name="probe", scope=scope)[1]


@pytest.fixture
def beta(db_url: str, monkeypatch: pytest.MonkeyPatch) -> Beta:
    monkeypatch.setenv("API_RATE_LIMIT", "100000/minute")
    tag = uuid.uuid4().hex[:6]
    alpha = workspaces.create_workspace(None, slug=f"alpha-{tag}", name="Alpha")
    beta_ws = workspaces.create_workspace(None, slug=f"beta-{tag}", name="Beta")
    marker = f"SECRETBETA{tag}"
    tokens = {
        "alpha": _person(f"a-{tag}", ["security_reviewer", "manager", "workspace_admin"], alpha.id),
        "alpha-approvals": _person(f"aa-{tag}", ["product_reviewer"], alpha.id, scope="approvals"),
        "beta": _person(f"b-{tag}", ["security_reviewer", "manager"], beta_ws.id),
        "removed": _person(f"r-{tag}", ["security_reviewer", "manager"], beta_ws.id),
        "admin": _person(f"i-{tag}", ["admin"], None),
    }
    both = f"ab-{tag}"
    tokens["both"] = _person(both, ["security_reviewer"], alpha.id)
    workspaces.set_member(None, beta_ws.slug, username=both, roles=["manager"])
    create_user(username=f"bs-{tag}", password="pw-starter", roles=["product_reviewer"], workspace_id=beta_ws.id)
    starter = find_actor(f"bs-{tag}")
    conversation = start_conversation(starter, StartCommand(
        task=f"Add rate limiting {marker}", task_type="code", title=f"Rate limits {marker}", workspace=beta_ws.slug))
    work()
    with UnitOfWork() as uow:
        review = uow.session.exec(select(ReviewRequest).where(ReviewRequest.conversation_id == conversation.id)).one()
        revision = uow.session.exec(select(CodeRevision).where(CodeRevision.conversation_id == conversation.id)
                                    .limit(1)).one()
    question = ask_question(find_actor(f"b-{tag}"), review.id, f"Why this limit {marker}?")
    team_text = export_team(None, "code").replace("name: code", f"name: team-{tag}", 1).replace(
        "description: ", f"description: {marker} ", 1)
    save_team(find_actor(f"i-{tag}"), team_text, workspace=beta_ws.slug)
    workspaces.remove_member(None, beta_ws.slug, username=f"r-{tag}")
    with in_process_api() as client:
        caller = _person(f"bc-{tag}", ["product_reviewer"], beta_ws.id, scope="approvals")
        approval = client.post("/api/external/approvals", headers=bearer(caller),
                               json=tool_request(f"req-{tag}", title=f"Deploy {marker}"))
        assert approval.status_code == 201, approval.text
    ids = {"conversation_id": str(conversation.id), "review_id": str(review.id), "revision_id": str(revision.id),
           "question_id": str(question.id), "approval_id": str(approval.json()["id"]), "link_id": MISSING["link_id"],
           "name": f"team-{tag}", "slug": beta_ws.slug, "username": f"b-{tag}"}
    return Beta(marker, ids, tokens)


@pytest.fixture
def client(beta: Beta) -> Iterator[TestClient]:
    with in_process_api() as test_client:
        yield test_client


def _call(client: TestClient, method: str, path: str, names: dict[str, str], token: str):
    url = path
    for key, value in names.items():
        url = url.replace("{" + key + "}", value)
    body = BODIES.get((method, path))
    if body and "yaml" in body:
        body = {"yaml": f"name: {names['name']}\n"}
    return client.request(method, url, json=body, headers=bearer(token))


def _beta_state() -> tuple:
    """What a walk must not change: beta's conversations, their reviews, and the audit trail's length."""
    with UnitOfWork() as uow:
        conversations = uow.session.exec(select(Conversation.id, Conversation.status, Conversation.title,
                                                Conversation.next_seq).order_by(Conversation.id)).all()
        reviews = uow.session.exec(select(ReviewRequest.id, ReviewRequest.status, ReviewRequest.version)
                                   .order_by(ReviewRequest.id)).all()
        events = uow.session.exec(select(func.count()).select_from(AuditEvent)).one()
    return tuple(conversations), tuple(reviews), events


def _same_shape(text: str, names: dict[str, str]) -> str:
    """The answer with the names asked for, and every number, replaced by placeholders."""
    for key, value in names.items():
        if not value.isdigit():
            text = re.sub(rf"(?<![\w-]){re.escape(value)}(?![\w-])", f"<{key}>", text)
    return re.sub(r"(?<![\w-])\d+(?![\w-])", "<n>", text)


@pytest.mark.parametrize("persona", ["alpha", "removed", "alpha-approvals"])
def test_nothing_of_beta_is_readable_or_changeable_from_outside(client: TestClient, beta: Beta, persona: str):
    before = _beta_state()
    routes = [(m, p) for m, p, r in api_routes(client) if needs_caller(r)]
    leaks, unlike_missing = [], []
    for method, path in routes:
        if method == "POST" and path in ("/api/conversations", "/api/workspaces", "/api/external/approvals"):
            continue  # they name nothing of beta (tried below with beta's slug)
        found = _call(client, method, path, beta.ids, beta.tokens[persona])
        if beta.marker in found.text:
            leaks.append(f"{method} {path}")
        if "{" in path:
            missing = _call(client, method, path, MISSING, beta.tokens[persona])
            if (found.status_code, _same_shape(found.text, beta.ids)) != (
                    missing.status_code, _same_shape(missing.text, MISSING)):
                unlike_missing.append(f"{method} {path}: {found.status_code} {found.text[:90]!r} "
                                      f"vs {missing.status_code} {missing.text[:90]!r}")
    assert not leaks, leaks
    assert not unlike_missing, "\n".join(unlike_missing)
    # Lists and exports filtered to beta by name: as if the workspace did not exist.
    for path in ("/api/conversations", "/api/reviews", "/api/audit", "/api/teams", "/api/audit/export"):
        answer = client.get(path, params={"workspace": beta.ids["slug"]}, headers=bearer(beta.tokens[persona]))
        assert answer.status_code in (403, 404) and beta.marker not in answer.text, (path, answer.text[:200])
    started = client.post("/api/conversations", params={"workspace": beta.ids["slug"]},
                          json={"task": "sneak in", "task_type": "code"}, headers=bearer(beta.tokens[persona]))
    assert started.status_code in (403, 404), started.text
    assert _beta_state() == before  # nothing of beta changed, and no audit event was written


def test_members_of_beta_and_the_instance_admin_see_it(client: TestClient, beta: Beta):
    conversation = f"/api/conversations/{beta.ids['conversation_id']}"
    for persona in ("beta", "both", "admin"):
        answer = client.get(conversation, headers=bearer(beta.tokens[persona]))
        assert answer.status_code == 200 and beta.marker in answer.text, (persona, answer.text[:200])
    listed = client.get("/api/conversations", headers=bearer(beta.tokens["both"])).text
    assert beta.marker in listed
    # A manager of beta reads beta's audit trail; a manager of alpha only does not.
    trail = client.get("/api/audit", params={"limit": 500}, headers=bearer(beta.tokens["beta"])).json()["items"]
    assert any(e["conversation_id"] == int(beta.ids["conversation_id"]) for e in trail)
    alpha_trail = client.get("/api/audit", params={"limit": 500}, headers=bearer(beta.tokens["alpha"])).json()
    assert alpha_trail["items"] and not any(
        e["conversation_id"] == int(beta.ids["conversation_id"]) for e in alpha_trail["items"])
    # The member of both, acting in alpha explicitly, sees alpha's only.
    in_alpha = client.get("/api/conversations", params={"workspace": beta.ids["slug"].replace("beta", "alpha")},
                          headers=bearer(beta.tokens["both"]))
    assert in_alpha.status_code == 200 and beta.marker not in in_alpha.text
