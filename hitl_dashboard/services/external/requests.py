"""Ask for a decision from outside the product: the request becomes a conversation of origin
'external' with its review request, and is then reviewed exactly as internal work is (queues,
claims, sign-offs in order, content-hash binding, SLAs, audit, webhooks, the one `decide`).

Idempotent on the caller's own request id: the same id from the same caller (a user, whichever
of its tokens) gives the same review, never a second one; the same id with another request is a
conflict (409)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.external_models import ExternalRequest
from hitl_dashboard.db.lookups import tool_call_label
from hitl_dashboard.db.memberships import resolve_workspace
from hitl_dashboard.db.models import CodeRevision, Conversation, Message, ToolCall
from hitl_dashboard.domain import external as rules
from hitl_dashboard.domain.enums import ConversationStatus, MessageKind, ReviewKind, SubjectType
from hitl_dashboard.domain.errors import Conflict, InvalidInput
from hitl_dashboard.domain.hashing import canonical_json, content_hash
from hitl_dashboard.domain.markdown_text import fenced
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.stored_values import language_token, revision_key
from hitl_dashboard.services.external.views import ApprovalView, approval_view
from hitl_dashboard.services.external_outcomes.args_schema import check_schema, validate_args
from hitl_dashboard.services.external_outcomes.callbacks import add_callback_target, check_callback_url
from hitl_dashboard.services.findings import queue as findings_queue
from hitl_dashboard.services.live import live
from hitl_dashboard.services.reviews.review_requests import Subject, open_request, touched_queues
from hitl_dashboard.services.rules.gate import decide_by_rules
from hitl_dashboard.services.rules.sign_off_gate import decide_sign_off_by_rules
from hitl_dashboard.services.teams import versions
from hitl_dashboard.services.transactions import reading, transaction
from hitl_dashboard.teams.model import TeamDefinition


@dataclass(frozen=True)
class ApprovalCommand:
    request_id: str
    team: str
    title: str
    tool: str | None = None
    arguments: dict[str, Any] | None = None
    args_schema: dict[str, Any] | None = None
    content: str | None = None
    file_name: str | None = None
    task_type: str | None = None
    link: str | None = None
    context: str | None = None
    callback_url: str | None = None
    on_overdue: str = "escalate"
    workspace: str | None = None  # its slug; None: the one the caller acts in (db/memberships.py)

    @property
    def kind(self) -> str:
        return rules.TOOL_CALL if self.tool is not None else rules.CONTENT

    def fingerprint(self) -> str:
        asked = {"team": self.team, "title": self.title, "tool": self.tool, "arguments": self.arguments,
                 "args_schema": self.args_schema, "content": self.content, "file_name": self.file_name,
                 "task_type": self.task_type, "link": self.link, "context": self.context,
                 "callback_url": self.callback_url, "on_overdue": self.on_overdue}
        if self.workspace is not None:  # only when named: fingerprints from before workspaces still match
            asked["workspace"] = self.workspace
        return content_hash(canonical_json(asked))


def request_approval(actor: Actor, command: ApprovalCommand) -> ApprovalView:
    """The review for this request id: a new one (created=True) or the one asked for before."""
    _check(command)
    fingerprint = command.fingerprint()
    with reading() as uow:  # asked before: answer without validating or resolving anything again
        earlier = _earlier(uow.session, actor, command.request_id, fingerprint)
    if earlier is not None:
        return earlier
    if command.tool is not None:
        if command.args_schema is not None:
            check_schema(command.args_schema)
        validate_args(command.args_schema, command.arguments, "arguments")
    if command.callback_url is not None:
        check_callback_url(command.callback_url)  # DNS, outside any transaction
    try:
        with transaction() as uow:
            row, conversation = _add(uow.session, actor, command, fingerprint)
            roles = touched_queues(uow.session)
            view = approval_view(uow.session, row, conversation, created=True)
    except IntegrityError:
        # The same id raced in from another request of this caller: the first one made the review.
        with reading() as uow:
            earlier = _earlier(uow.session, actor, command.request_id, fingerprint)
        if earlier is None:
            raise
        return earlier
    live.publish_turn(conversation.id, roles)  # the queues and lists show it at once
    return view


def _check(command: ApprovalCommand) -> None:
    rules.check_request_id(command.request_id)
    if not command.title.strip() or len(command.title) > rules.MAX_TITLE:
        raise InvalidInput(f"title must be 1-{rules.MAX_TITLE} characters", "title")
    if command.context is not None and len(command.context) > rules.MAX_CONTEXT:
        raise InvalidInput(f"context is longer than {rules.MAX_CONTEXT} characters", "context")
    if command.link is not None:
        rules.check_web_url(command.link, "link")
    if command.on_overdue not in ("escalate", "abort"):
        raise InvalidInput("on_overdue must be escalate or abort", "on_overdue")
    if (command.tool is None) == (command.content is None):
        raise InvalidInput("ask about exactly one thing: a tool call (tool, arguments) or content", "tool")
    if command.tool is not None:
        if not rules.TOOL_NAME.match(command.tool):
            raise InvalidInput("tool must be a name of 1-64 letters, digits, '_', '.' or '-'", "tool")
        rules.check_json_size(command.arguments, "arguments")
        if command.args_schema is not None:  # checked against the arguments once it is not a replay
            rules.check_json_size(command.args_schema, "args_schema")
    else:
        assert command.content is not None
        if not command.content.strip() or len(command.content) > rules.MAX_CONTENT:
            raise InvalidInput(f"content must be 1-{rules.MAX_CONTENT} characters", "content")
        if not (command.file_name or "").strip() or len(command.file_name or "") > rules.MAX_FILE_NAME:
            raise InvalidInput(f"content needs a file_name of 1-{rules.MAX_FILE_NAME} characters", "file_name")


def _earlier(session: Session, actor: Actor, request_id: str, fingerprint: str) -> ApprovalView | None:
    row = session.exec(select(ExternalRequest).where(ExternalRequest.caller_id == actor.user_id,
                                                     ExternalRequest.caller_request_id == request_id)).first()
    if row is None:
        return None
    if row.fingerprint != fingerprint:
        raise Conflict(f"request_id '{request_id}' was already used for a different request (approval {row.id}); "
                       "send a new request_id for a new request")
    conversation = session.get(Conversation, row.conversation_id)
    assert conversation is not None
    return approval_view(session, row, conversation, created=False)


def _team(session: Session, workspace_id: int, command: ApprovalCommand) -> tuple[int, TeamDefinition, str]:
    found = versions.current(session, command.team, workspace_id)
    if found is None:
        raise InvalidInput(f"unknown team '{command.team}'", "team")
    version, team = found
    task_type = command.task_type or team.fixed_task_type or next(iter(team.task_types))
    if not team.serves(task_type):
        raise InvalidInput(f"team '{command.team}' does {', '.join(team.task_types)} tasks", "task_type")
    assert version.id is not None
    return version.id, team, task_type


def _add(session: Session, actor: Actor, command: ApprovalCommand,
         fingerprint: str) -> tuple[ExternalRequest, Conversation]:
    workspace = resolve_workspace(session, actor, command.workspace, for_new_work=True)
    version_id, team, task_type = _team(session, workspace.id, command)
    what = (f"{command.tool}({canonical_json(command.arguments)})" if command.tool is not None
            else f"{command.file_name}")
    conversation = Conversation(
        workspace_id=workspace.id, title=command.title, task=f"External approval request: {what}"[:20_000],
        task_type=task_type,
        template=command.team, team_version_id=version_id, gate_policy=team.default_policy(task_type).to_dict(),
        on_overdue=command.on_overdue, status=ConversationStatus.AWAITING_REVIEW, initiator_id=actor.user_id,
        origin=rules.EXTERNAL, next_seq=1,
    )
    session.add(conversation)
    session.flush()
    hook = (add_callback_target(session, command.callback_url, actor.user_id, workspace.id)
            if command.callback_url else None)
    row = ExternalRequest(
        conversation_id=conversation.id, caller_id=actor.user_id, token_name=actor.token_name[:100],
        caller_request_id=command.request_id, fingerprint=fingerprint, kind=command.kind, link=command.link,
        context=command.context, args_schema=command.args_schema, callback_url=command.callback_url,
        callback_webhook_id=hook.id if hook else None,
    )
    session.add(row)
    session.flush()  # a second request with this id fails here (unique), before anything else is written
    append_audit(session, actor=actor.username, action="conversation.started", conversation_id=conversation.id,
                 details={"origin": rules.EXTERNAL, "request_id": command.request_id, "kind": command.kind,
                          "template": command.team, "task_type": task_type, "token": actor.token_name,
                          "link": command.link, "approval_id": row.id})
    if command.context:
        _say(session, conversation, actor.username, MessageKind.TEXT, command.context)
    if command.tool is not None:
        _ask_tool_call(session, conversation, actor, team, command)
    else:
        _ask_content(session, conversation, actor, team, command, task_type)
    return row, conversation


def _say(session: Session, conversation: Conversation, source: str, kind: str, content: str) -> Message:
    message = Message(conversation_id=conversation.id, workspace_id=conversation.workspace_id,
                      seq=conversation.next_seq, source=source, kind=kind,
                      content=content)
    conversation.next_seq += 1
    session.add(message)
    session.add(conversation)
    session.flush()
    return message


def _ask_tool_call(session: Session, conversation: Conversation, actor: Actor, team: TeamDefinition,
                   command: ApprovalCommand) -> None:
    assert command.tool is not None and command.arguments is not None
    _say(session, conversation, actor.username, MessageKind.TOOL_CALL,
         f"{actor.username} asks to call `{command.tool}` with:\n\n" + fenced(
             canonical_json(command.arguments), "json"))
    call = ToolCall(conversation_id=conversation.id, call_id=f"external-{conversation.id}", tool_name=command.tool,
                    arguments=command.arguments, args_hash=content_hash(command.arguments))
    session.add(call)
    session.flush()
    assert call.id is not None
    request = open_request(
        session, conversation, kind=ReviewKind.TOOL_CALL, role=team.tool_approver, rule="external",
        reason=f"{actor.username} (external) wants to call {command.tool}",
        subject=Subject(SubjectType.TOOL_CALL, call.id, tool_call_label(session, call), call.args_hash),
        risk_flags=[command.tool, rules.EXTERNAL], actor=actor.username)
    decide_by_rules(session, conversation, [request])  # a standing rule may answer at once


def _ask_content(session: Session, conversation: Conversation, actor: Actor, team: TeamDefinition,
                 command: ApprovalCommand, task_type: str) -> None:
    assert command.content is not None and command.file_name is not None
    key = revision_key(command.file_name)
    language = language_token(key.rsplit(".", 1)[-1] if "." in key else "text")
    message = _say(session, conversation, actor.username, MessageKind.TEXT,
                   f"{actor.username} asks for sign-off on `{key}`:\n\n" + fenced(command.content, language))
    content = command.content if command.content.endswith("\n") else command.content + "\n"
    assert message.id is not None
    revision = CodeRevision(conversation_id=conversation.id, message_id=message.id, key=key, number=1,
                            language=language, content=content, content_hash=content_hash(content))
    session.add(revision)
    session.flush()
    assert revision.id is not None
    findings_queue.enqueue(session, [revision])  # Python content is analysed as agents' code is
    combined = content_hash(sorted([[revision.key, revision.content_hash]]))
    request = open_request(
        session, conversation, kind=ReviewKind.SIGNOFF, role=team.sign_off(task_type)[0], rule="external",
        reason=f"{actor.username} (external) asks for sign-off",
        subject=Subject(SubjectType.CODE_REVISION, revision.id, f"{key} r1", combined),
        risk_flags=[rules.EXTERNAL], actor=actor.username)
    decide_sign_off_by_rules(session, conversation, request)  # where the team allows it, a rule may sign off
