"""Time travel: fork a conversation at any earlier turn (optionally with new instructions aimed at an
agent, or an edited copy of that turn's message), or replay it from a turn with the same inputs.

Either way the result is a new conversation linked to its parent and turn, starting from exactly the
team state after that turn (rebuilt from turn_checkpoints), with a copy of the parent's transcript up
to that turn and the code revisions in it. Review requests, decisions and tool approvals never carry
over: a fork's revisions need their own sign-offs, and the one who forked is its initiator (so they
cannot sign it off). Anyone who may start a conversation may fork one (every signed-in user)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, col, select

from hitl_dashboard.db.audit import append_audit
from hitl_dashboard.db.code_revisions import add_revisions
from hitl_dashboard.db.lookups import load_conversation
from hitl_dashboard.db.models import CodeRevision, Conversation, Message, TurnCheckpoint
from hitl_dashboard.domain.checkpoints import FULL, CheckpointError, replace_content
from hitl_dashboard.domain.enums import ConversationStatus, MessageKind
from hitl_dashboard.domain.errors import Conflict, InvalidInput
from hitl_dashboard.domain.permissions import Actor
from hitl_dashboard.domain.revise_message import revise_message
from hitl_dashboard.domain.revisions import proposed_code
from hitl_dashboard.services.findings.queue import enqueue as enqueue_analysis
from hitl_dashboard.services.live import live
from hitl_dashboard.services.runner.checkpoints import state_at, turn_row
from hitl_dashboard.services.teams.versions import pinned
from hitl_dashboard.services.transactions import reading, transaction

FORK, REPLAY = "fork", "replay"
MAX_INSTRUCTIONS_CHARS = 20_000
MAX_EDITED_MESSAGE_CHARS = 100_000
FORK_ROLE = "fork"  # the signature on a fork's instructions: "(from alice, fork)"


def fork(actor: Actor, conversation_id: int, turn: int, instructions: str | None = None,
         target_agent: str | None = None, edited_message: str | None = None) -> Conversation:
    """A new conversation from the state after `turn`. With instructions, the agents resume with them
    (sent to `target_agent`, by default the one producing the work); else they carry on as they were."""
    instructions = (instructions or "").strip() or None
    if instructions and len(instructions) > MAX_INSTRUCTIONS_CHARS:
        raise InvalidInput(f"the instructions are longer than {MAX_INSTRUCTIONS_CHARS} characters", "instructions")
    if target_agent and not instructions:
        raise InvalidInput("a target agent needs instructions to send it", "target_agent")
    if edited_message is not None and not edited_message.strip():
        raise InvalidInput("the edited message is empty", "edited_message")
    if edited_message is not None and len(edited_message) > MAX_EDITED_MESSAGE_CHARS:
        raise InvalidInput(f"the edited message is longer than {MAX_EDITED_MESSAGE_CHARS} characters",
                           "edited_message")
    with transaction() as uow:
        parent = load_conversation(uow.session, conversation_id, actor)
        _check_turn(parent, turn, lowest=1)
        next_input = None
        if instructions:
            team = pinned(parent)
            agents = team.agent_names
            target = target_agent or team.producer(parent.task_type)
            if target not in agents:
                raise InvalidInput(f"unknown agent '{target}': this team has {', '.join(agents)}", "target_agent")
            next_input = {"source": actor.username, "content": revise_message(
                target=target, instructions=instructions, line_comments=(), reviewer=actor.username, role=FORK_ROLE)}
        child = _branch(uow.session, actor, parent, turn, FORK, next_input, edited_message)
        if instructions:  # the transcript says what the fork was told, as it does for a reviewer's REVISE
            uow.session.add(Message(conversation_id=child.id, workspace_id=child.workspace_id, seq=child.next_seq,
                                    source=actor.username,
                                    kind=MessageKind.DECISION,
                                    content=f"FORK of #{parent.id} at turn {turn} by {actor.username}: {instructions}"
                                    + (f" (for @{target_agent})" if target_agent else "")))
            child.next_seq += 1
        append_audit(uow.session, actor=actor.username, action="conversation.forked", conversation_id=child.id,
                     details={"parent": parent.id, "turn": turn, "instructions": instructions,
                              "target_agent": target_agent if instructions else None,
                              "edited_message": edited_message is not None})
    live.publish_turn(child.id)
    return child


def replay(actor: Actor, conversation_id: int, turn: int) -> Conversation:
    """A new conversation from the state after `turn` (0: from the start) that runs the next turn with
    the input the parent's next turn had: the same question, new model calls."""
    with transaction() as uow:
        parent = load_conversation(uow.session, conversation_id, actor)
        _check_turn(parent, turn, lowest=0)
        following = turn_row(uow.session, parent.id, turn + 1)
        if following is None:
            raise Conflict(f"conversation {parent.id} has no turn after turn {turn} to replay")
        child = _branch(uow.session, actor, parent, turn, REPLAY, following.input, None)
        append_audit(uow.session, actor=actor.username, action="conversation.replayed", conversation_id=child.id,
                     details={"parent": parent.id, "turn": turn})
    live.publish_turn(child.id)
    return child


@dataclass(frozen=True)
class Branch:
    id: int
    title: str
    origin: str
    turn: int
    status: str


@dataclass(frozen=True)
class ForkTree:
    """A conversation's place among forks: where it came from, and what was forked from it."""

    parent: Branch | None
    children: list[Branch]


def fork_tree(actor: Actor | None, conversation_id: int) -> ForkTree:
    with reading() as uow:
        conversation = load_conversation(uow.session, conversation_id, actor)
        parent = None
        if conversation.parent_id is not None:
            row = uow.session.get(Conversation, conversation.parent_id)
            if row is not None:
                parent = Branch(row.id, row.title, conversation.origin or FORK, conversation.parent_turn or 0,
                                row.status)
        children = [Branch(c.id, c.title, c.origin or FORK, c.parent_turn or 0, c.status)
                    for c in uow.session.exec(select(Conversation).where(Conversation.parent_id == conversation_id)
                                              .order_by(col(Conversation.parent_turn), col(Conversation.id)))]
    return ForkTree(parent, children)


def turn_of_message(actor: Actor | None, conversation_id: int, seq: int) -> int:
    """The agent turn that wrote message `seq` ("fork from here" on a message forks after its turn)."""
    with reading() as uow:
        load_conversation(uow.session, conversation_id, actor)
        turn = uow.session.exec(
            select(TurnCheckpoint.turn).where(TurnCheckpoint.conversation_id == conversation_id,
                                              TurnCheckpoint.last_seq >= seq)
            .order_by(col(TurnCheckpoint.turn)).limit(1)
        ).first()
    if turn is None:
        raise InvalidInput(f"message #{seq} of conversation {conversation_id} belongs to no stored turn", "seq")
    return turn


def turn_message(actor: Actor | None, conversation_id: int, turn: int) -> str | None:
    """The agent message of `turn`: what a fork with an edited message replaces (the fork dialog
    starts from it). None when that turn has no single agent message to edit (a tool call, say)."""
    with reading() as uow:
        conversation = load_conversation(uow.session, conversation_id, actor)
        spoken = _spoken_in_turn(uow.session, conversation, turn)
    return spoken[0].content if spoken is not None and len(spoken) == 1 else None


def _check_turn(parent: Conversation, turn: int, *, lowest: int) -> None:
    if isinstance(turn, bool) or not isinstance(turn, int) or turn < lowest:
        raise InvalidInput(f"the turn must be a whole number from {lowest}", "turn")
    if turn > parent.checkpoint_version:  # (a stored turn never changes: forking a running one is fine)
        raise InvalidInput(f"conversation {parent.id} has {parent.checkpoint_version} turns, not {turn}", "turn")


def _branch(session: Session, actor: Actor, parent: Conversation, turn: int, origin: str,
            next_input: dict | None, edited_message: str | None) -> Conversation:
    try:
        state = state_at(session, parent.id, turn)
    except CheckpointError as exc:
        raise Conflict(f"the team state after turn {turn} of conversation {parent.id} cannot be rebuilt "
                       f"(turns stored before forks existed keep only their latest state): {exc}") from exc
    checkpoint = turn_row(session, parent.id, turn) if turn else None
    if turn and checkpoint is None:  # state_at has just read it: gone means a concurrent change
        raise Conflict(f"turn {turn} of conversation {parent.id} has no checkpoint any more")
    last_seq = checkpoint.last_seq if checkpoint is not None else 1
    messages = list(session.exec(select(Message).where(Message.conversation_id == parent.id,
                                                       Message.seq <= last_seq).order_by(col(Message.seq))))
    edited_seq = None
    if edited_message is not None:
        edited_seq = _edit_turn_message(session, parent, turn, state, edited_message.strip())
    suffix = f" ({origin} of #{parent.id} at turn {turn})"
    child = Conversation(
        workspace_id=parent.workspace_id,  # a fork stays in its parent's workspace
        title=parent.title[:200 - len(suffix)] + suffix, task=parent.task, task_type=parent.task_type,
        template=parent.template, gate_policy=dict(parent.gate_policy), model_routing=dict(parent.model_routing),
        on_overdue=parent.on_overdue, status=ConversationStatus.RUNNING, initiator_id=actor.user_id,
        prompt_tokens=sum(m.prompt_tokens for m in messages),
        completion_tokens=sum(m.completion_tokens for m in messages),
        checkpoint_version=turn, next_input=next_input, next_seq=last_seq + 1,
        parent_id=parent.id, parent_turn=turn, origin=origin,
        team_version_id=parent.team_version_id,  # the parent's team, as it was
    )
    session.add(child)
    session.flush()
    copies = {}
    for m in messages:
        edited = m.seq == edited_seq
        content = edited_message.strip() if edited and edited_message is not None else m.content
        copy = Message(conversation_id=child.id, workspace_id=child.workspace_id, seq=m.seq, source=m.source,
                       kind=m.kind, content=content,
                       prompt_tokens=m.prompt_tokens, completion_tokens=m.completion_tokens, created_at=m.created_at,
                       model=None if edited else m.model)  # an edited message was not written by that model
        session.add(copy)
        copies[m.id] = (copy, m.seq)
    session.flush()
    _copy_revisions(session, parent.id, child.id,
                    {old: new.id for old, (new, seq) in copies.items() if seq != edited_seq})
    if edited_seq is not None:  # the edited copy proposes what its own text says, numbered after the earlier ones
        edited_copy = next(copy for copy, seq in copies.values() if seq == edited_seq)
        session.flush()
        blocks = proposed_code(pinned(child).code_authors, edited_copy.source, edited_copy.content)
        enqueue_analysis(session, add_revisions(session, child.id, edited_copy.id, blocks))
    if state is not None:
        session.add(TurnCheckpoint(conversation_id=child.id, turn=turn, kind=FULL, data=state, last_seq=last_seq))
    return child


def _edit_turn_message(session: Session, parent: Conversation, turn: int, state: dict | None,
                       new_text: str) -> int:
    """Put the edited text in place of the agent message of `turn`, in the state; returns its seq."""
    spoken = _spoken_in_turn(session, parent, turn)
    if spoken is None:
        raise Conflict(f"turn {turn - 1} of conversation {parent.id} was stored before forks existed")
    if len(spoken) != 1:
        raise InvalidInput(f"turn {turn} has no single agent message to edit", "edited_message")
    if state is None or replace_content(state, spoken[0].content, new_text) == 0:
        raise Conflict(f"the message of turn {turn} is not in the team state as stored; it cannot be edited")
    return spoken[0].seq


def _spoken_in_turn(session: Session, conversation: Conversation, turn: int) -> list[Message] | None:
    """The text messages the agents wrote in `turn` (None when that turn or the one before it is not
    stored turn by turn: where the turn begins is unknown)."""
    row = turn_row(session, conversation.id, turn) if turn >= 1 else None
    previous = turn_row(session, conversation.id, turn - 1) if turn > 1 else None
    if row is None or (turn > 1 and previous is None):
        return None
    before = previous.last_seq if previous else 1
    return list(session.exec(
        select(Message).where(Message.conversation_id == conversation.id, Message.seq > before,
                              Message.seq <= row.last_seq, Message.kind == MessageKind.TEXT,
                              col(Message.source).in_(pinned(conversation).agent_names))
        .order_by(col(Message.seq))))


def _copy_revisions(session: Session, parent_id: int, child_id: int, message_ids: dict[int, int]) -> None:
    if not message_ids:
        return
    for r in session.exec(select(CodeRevision).where(CodeRevision.conversation_id == parent_id,
                                                     col(CodeRevision.message_id).in_(list(message_ids)))):
        session.add(CodeRevision(conversation_id=child_id, message_id=message_ids[r.message_id], key=r.key,
                                 number=r.number, language=r.language, content=r.content,
                                 content_hash=r.content_hash, created_at=r.created_at))


def parent_revisions(actor: Actor | None, conversation_id: int) -> list[CodeRevision]:
    """The code revisions of the conversation this one was forked or replayed from (none otherwise),
    by file then number: what a fork's own revisions can be compared with."""
    with reading() as uow:
        conversation = load_conversation(uow.session, conversation_id, actor)
        if conversation.parent_id is None:
            return []
        return list(uow.session.exec(select(CodeRevision).where(CodeRevision.conversation_id == conversation.parent_id)
                                     .order_by(CodeRevision.key, col(CodeRevision.number))))


def compare_with_parent(actor: Actor | None, conversation_id: int, parent_revision_id: int,
                        own_revision_id: int) -> tuple[CodeRevision, CodeRevision]:
    """(the parent's revision, this conversation's revision), each checked to belong where it should."""
    with reading() as uow:
        conversation = load_conversation(uow.session, conversation_id, actor)
        theirs = uow.session.get(CodeRevision, parent_revision_id)
        ours = uow.session.get(CodeRevision, own_revision_id)
    if conversation.parent_id is None or theirs is None or theirs.conversation_id != conversation.parent_id:
        raise InvalidInput(f"revision {parent_revision_id} is not one of the parent's", "parent_revision_id")
    if ours is None or ours.conversation_id != conversation_id:
        raise InvalidInput(f"revision {own_revision_id} is not one of conversation {conversation_id}'s",
                           "own_revision_id")
    return theirs, ours
