"""Structured decisions, their validation, and a parser for free-text decisions."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from hitl_dashboard.domain.edits import MAX_EDITED_FILE_CHARS, MAX_EDITED_FILES, MAX_EDITED_MESSAGE_CHARS
from hitl_dashboard.domain.enums import Action, ReviewKind
from hitl_dashboard.domain.errors import InvalidInput, MalformedRequest
from hitl_dashboard.domain.hashing import content_hash
from hitl_dashboard.domain.suggestions import MAX_SUGGESTION_LINES, SuggestedChange, render_suggestion

MAX_TEXT = 20_000
MAX_IDEMPOTENCY_KEY = 200


@dataclass(frozen=True)
class LineComment:
    key: str  # file key of the code revision
    line: int
    text: str
    # A suggested change: the exact lines that replace lines line..end_line (() deletes them); None
    # for a plain comment. domain/suggestions.py writes it into the REVISE message.
    suggestion: tuple[str, ...] | None = None
    end_line: int | None = None
    # The code revision the suggestion's line numbers refer to: pinned by the server when the decision
    # is recorded (services/reviews/suggestion_pins.py), never taken from the reviewer.
    revision_id: int | None = None

    @property
    def last_line(self) -> int:
        return self.end_line or self.line

    def suggested_change(self) -> SuggestedChange | None:
        if self.suggestion is None:
            return None
        return SuggestedChange(self.key, self.line, self.last_line, tuple(self.suggestion), self.text)

    @classmethod
    def from_stored(cls, value: dict[str, Any]) -> LineComment:
        """A comment as decisions.line_comments holds it (older rows have no suggestion fields)."""
        suggestion = value.get("suggestion")
        return cls(str(value["key"]), int(value["line"]), str(value.get("text") or ""),
                   tuple(str(line) for line in suggestion) if isinstance(suggestion, list | tuple) else None,
                   value.get("end_line"), value.get("revision_id"))


@dataclass(frozen=True)
class DecisionInput:
    action: Action
    reason: str | None = None
    instructions: str | None = None
    target_agent: str | None = None
    edited_args: dict[str, Any] | None = None
    line_comments: tuple[LineComment, ...] = field(default_factory=tuple)
    idempotency_key: str | None = None
    expected_version: int | None = None
    override_reason: str | None = None
    # The content hash of what the reviewer was shown: refused if the review's content differs.
    expected_content_hash: str | None = None
    # "Approve with my changes": the reviewer's version of files under review (key -> whole text),
    # or of the message under review (domain/edits.py).
    edited_files: dict[str, str] | None = None
    edited_text: str | None = None

    def fingerprint(self, review_id: int) -> str:
        """What was asked, minus the key: a reused key must ask exactly the same thing."""
        asked = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "idempotency_key"}
        asked["line_comments"] = [[c.key, c.line, c.text] + ([c.end_line, list(c.suggestion)] if c.suggestion
                                                             is not None else []) for c in self.line_comments]
        return content_hash({"review_id": review_id, **asked})


def check_idempotency_key(key: str | None) -> None:
    """1-200 printable ASCII characters (the IETF Idempotency-Key draft: a plain string token)."""
    if key is None:
        return
    if not 1 <= len(key) <= MAX_IDEMPOTENCY_KEY:
        raise MalformedRequest(f"Idempotency-Key must be 1-{MAX_IDEMPOTENCY_KEY} characters long")
    if any(not " " < ch <= "~" for ch in key):
        raise MalformedRequest("Idempotency-Key may only hold printable ASCII characters without spaces")


def validate_decision(decision: DecisionInput, *, kind: ReviewKind, agents: tuple[str, ...]) -> None:
    for name in ("reason", "instructions", "override_reason"):
        value = getattr(decision, name)
        if value is not None and len(value) > MAX_TEXT:
            raise InvalidInput(f"{name} is longer than {MAX_TEXT} characters", name)
    check_idempotency_key(decision.idempotency_key)
    if decision.action == Action.ABORT and not (decision.reason or "").strip():
        raise InvalidInput("an abort needs a reason", "reason")
    needs_instructions = decision.action == Action.REVISE and kind != ReviewKind.TOOL_CALL
    if needs_instructions and not (decision.instructions or "").strip() and not decision.line_comments:
        raise InvalidInput("a revision needs instructions or line comments", "instructions")
    if decision.target_agent is not None and decision.target_agent not in agents:
        raise InvalidInput(
            f"unknown agent '{decision.target_agent}'; this team has {', '.join(agents)}", "target_agent"
        )
    if decision.edited_args is not None:
        if kind != ReviewKind.TOOL_CALL:
            raise InvalidInput("edited arguments apply only to a tool call review", "edited_args")
        if decision.action != Action.APPROVE:
            raise InvalidInput("edited arguments go with an approval", "edited_args")
    _check_edits(decision, kind)
    for comment in decision.line_comments:
        _check_comment(comment)


def _check_comment(comment: LineComment) -> None:
    if comment.suggestion is None:
        if comment.line < 1 or not comment.text.strip() or len(comment.text) > MAX_TEXT:
            raise InvalidInput("a line comment needs a line >= 1 and some text", "line_comments")
        if comment.end_line is not None:
            raise InvalidInput("end_line goes with a suggestion", "line_comments")
        return
    if comment.line < 1 or comment.last_line < comment.line or comment.last_line - comment.line >= MAX_SUGGESTION_LINES:
        raise InvalidInput(f"a suggestion replaces lines line..end_line: end_line >= line, at most "
                           f"{MAX_SUGGESTION_LINES} lines", "line_comments")
    lines = comment.suggestion
    if len(lines) > MAX_SUGGESTION_LINES or len(comment.text) + sum(len(ln) + 1 for ln in lines) > MAX_TEXT:
        raise InvalidInput(f"a suggestion has at most {MAX_SUGGESTION_LINES} lines and {MAX_TEXT} characters",
                           "line_comments")
    if any("\n" in ln or "\r" in ln for ln in lines):
        raise InvalidInput("each suggested line is one line: no line breaks inside it", "line_comments")


def _check_edits(decision: DecisionInput, kind: ReviewKind) -> None:
    """The shape and size of a reviewer's own version; services/reviews/edits.py checks it against
    what is under review (files it names, whether anything changed)."""
    field_name = "edited_files" if decision.edited_files is not None else "edited_text"
    if decision.edited_files is None and decision.edited_text is None:
        return
    if decision.edited_files is not None and decision.edited_text is not None:
        raise InvalidInput("send edited files or an edited message, not both", field_name)
    if kind == ReviewKind.TOOL_CALL:
        raise InvalidInput("a tool call is edited through its arguments (edited_args)", field_name)
    if decision.action != Action.APPROVE:
        raise InvalidInput("your own version goes with an approval (approve with my changes)", field_name)
    if decision.edited_text is not None and len(decision.edited_text) > MAX_EDITED_MESSAGE_CHARS:
        raise InvalidInput(f"the edited message is longer than {MAX_EDITED_MESSAGE_CHARS} characters", field_name)
    files = decision.edited_files or {}
    if decision.edited_files is not None and not files:
        raise InvalidInput("no edited file was sent", field_name)
    if len(files) > MAX_EDITED_FILES:
        raise InvalidInput(f"at most {MAX_EDITED_FILES} edited files", field_name)
    for key, text in files.items():
        if not isinstance(key, str) or not isinstance(text, str):
            raise InvalidInput("edited files map each file name to its whole text", field_name)
        if len(text) > MAX_EDITED_FILE_CHARS:
            raise InvalidInput(f"the edited {key[:255]} is longer than {MAX_EDITED_FILE_CHARS} characters",
                               field_name)


_FREE_TEXT = re.compile(
    r"^\s*(?P<action>approve|approved|lgtm|revise|abort|skip)\b\s*(?P<target>@\w+)?\s*[:\-,]?\s*(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)


def parse_free_text(text: str) -> DecisionInput:
    """'approve', 'lgtm', 'revise @coder: add a timeout', 'abort: leaks secrets', 'skip'."""
    match = _FREE_TEXT.match(text or "")
    if not match:
        raise InvalidInput("a decision starts with approve, revise, abort or skip", "text")
    word = match.group("action").lower()
    action = Action.APPROVE if word in ("approved", "lgtm") else Action(word)
    rest = match.group("rest").strip() or None
    target = match.group("target")[1:] if match.group("target") else None
    if rest and target is None:
        mention = re.match(r"@(\w+)\s*[:\-,]?\s*(.*)$", rest, re.DOTALL)
        if mention:
            target, rest = mention.group(1), mention.group(2).strip() or None
    if action == Action.REVISE:
        return DecisionInput(action, instructions=rest, target_agent=target)
    return DecisionInput(action, reason=rest, target_agent=target)


def render_line_comments(comments: tuple[LineComment, ...]) -> str:
    """One bullet per comment; a suggestion also carries its exact lines (domain/suggestions.py)."""
    return "\n".join(render_suggestion(change) if (change := c.suggested_change()) is not None
                     else f"- {c.key} line {c.line}: {c.text.strip()}" for c in comments)
