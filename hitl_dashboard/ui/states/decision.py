"""The decision panel: a draft per conversation that survives reloads, and the submission.

The draft (instructions, target, reason, edited arguments, line comments) lives in the
browser's LocalStorage. The idempotency key is derived from (user, review, version,
action): a double click or a second tab sends the same key and is applied once."""

from __future__ import annotations

import asyncio
import json

import reflex as rx

from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.decisions import DecisionInput, LineComment
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import DomainError, InvalidInput
from hitl_dashboard.services import live
from hitl_dashboard.services.decide import decide
from hitl_dashboard.ui.states.app_state import AppState, path_id

MAX_DRAFTS = 50


def _decide(actor, review_id: int, decision: DecisionInput):
    with UnitOfWork() as uow:
        outcome = decide(uow, actor, review_id, decision)
        uow.commit()
        return outcome


class DecisionState(AppState):
    drafts: str = rx.LocalStorage("{}", name="hitl_drafts", sync=True)
    instructions: str = ""
    target: str = ""
    reason: str = ""
    override_reason: str = ""
    args_text: str = ""
    comments: list[dict[str, str]] = []
    comment_key: str = ""
    comment_line: int = 0
    comment_text: str = ""
    error: str = ""
    error_field: str = ""
    submitting: bool = False

    # -- drafts ---------------------------------------------------------------------------
    def _cid(self) -> str:
        return str(path_id(self.router.url.path) or "")

    def _all(self) -> dict:
        try:
            value = json.loads(self.drafts or "{}")
            return value if isinstance(value, dict) else {}
        except ValueError:
            return {}

    def _save(self) -> None:
        drafts = self._all()
        drafts[self._cid()] = {"instructions": self.instructions, "target": self.target, "reason": self.reason,
                               "args": self.args_text, "comments": self.comments}
        self.drafts = json.dumps(dict(list(drafts.items())[-MAX_DRAFTS:]))

    @rx.event
    def load_draft(self):
        draft = self._all().get(self._cid(), {})
        self.instructions, self.target = draft.get("instructions", ""), draft.get("target", "")
        self.reason, self.args_text = draft.get("reason", ""), draft.get("args", "")
        self.comments = [c for c in draft.get("comments", []) if isinstance(c, dict)]
        self.comment_line, self.comment_text, self.error, self.error_field = 0, "", "", ""
        self.override_reason = ""

    def _clear(self) -> None:
        self.instructions = self.target = self.reason = self.args_text = self.override_reason = ""
        self.comments, self.comment_line, self.comment_text = [], 0, ""
        drafts = self._all()
        drafts.pop(self._cid(), None)
        self.drafts = json.dumps(drafts)

    @rx.event
    def set_instructions(self, value: str):
        self.instructions = value
        self._save()

    @rx.event
    def set_target(self, value: str):
        self.target = "" if value == "default" else value
        self._save()

    @rx.event
    def set_reason(self, value: str):
        self.reason = value
        self._save()

    @rx.event
    def set_override_reason(self, value: str):
        self.override_reason = value

    @rx.event
    def set_args_text(self, value: str):
        self.args_text = value
        self._save()

    @rx.event
    def set_comment_text(self, value: str):
        self.comment_text = value

    # -- line comments --------------------------------------------------------------------
    @rx.event
    def pick_line(self, line_id: str, key: str):
        """line_id from the diff viewer: 'R-12' (new side) or 'L-12' (old side)."""
        side, _, number = str(line_id).partition("-")
        if number.isdigit():
            self.comment_key, self.comment_line, self.comment_text = key, int(number), ""
            self.error = "" if side == "R" else "Note: that line number is in the older revision."

    @rx.event
    def add_comment(self):
        text = self.comment_text.strip()
        if not text or self.comment_line < 1:
            return
        self.comments = self.comments + [{"key": self.comment_key, "line": str(self.comment_line), "text": text}]
        self.comment_line, self.comment_text = 0, ""
        self._save()

    @rx.event
    def cancel_comment(self):
        self.comment_line, self.comment_text = 0, ""

    @rx.event
    def remove_comment(self, index: int):
        self.comments = [c for i, c in enumerate(self.comments) if i != index]
        self._save()

    # -- submit ---------------------------------------------------------------------------
    @rx.event
    async def submit(self, review_id: int, version: int, kind: str, action: str):
        if self.submitting:
            return
        self.submitting, self.error, self.error_field = True, "", ""
        yield
        try:
            actor = await self.actor()
            decision = self._decision(int(review_id), int(version), kind, Action(action), actor.user_id)
            outcome = await asyncio.to_thread(_decide, actor, int(review_id), decision)
        except InvalidInput as exc:
            self.error, self.error_field = str(exc), exc.field or ""
        except DomainError as exc:
            self.error = str(exc)
        else:
            self._clear()
            live.publish_turn(outcome.conversation_id)
            yield rx.toast.success(f"{action.capitalize()} recorded" + (" (already sent)" if outcome.replayed else ""))
        finally:
            self.submitting = False

    def _decision(self, review_id: int, version: int, kind: str, action: Action, user_id: int) -> DecisionInput:
        edited = None
        if kind == "tool_call" and action == Action.APPROVE and self.args_text.strip():
            try:
                edited = json.loads(self.args_text)
            except ValueError as exc:
                raise InvalidInput(f"the arguments are not valid JSON: {exc}", "edited_args") from exc
        comments = tuple(LineComment(c["key"], int(c["line"]), c["text"]) for c in self.comments)
        return DecisionInput(
            action=action,
            reason=self.reason.strip() or None,
            instructions=self.instructions.strip() or None if action == Action.REVISE else None,
            target_agent=self.target or None if action == Action.REVISE else None,
            edited_args=edited,
            line_comments=comments if action == Action.REVISE else (),
            idempotency_key=f"ui-{user_id}-{review_id}-v{version}-{action.value}",
            expected_version=version,
            override_reason=self.override_reason.strip() or None,
        )
