"""The decision panel: one form per review card, drafts that survive reloads, and the submission.

Each card's form (instructions, target, reason, override reason, edited arguments) is keyed by
its review id, so two tool-call cards of one turn never share a field. Drafts live in the
browser's LocalStorage. Each draft carries a random key: the idempotency key of its decision
is derived from it, so a double click or a second tab is applied once, and nobody can guess it.
A submission carries the review id, version and content hash the card showed; the server
refuses it if the review is about anything else."""

from __future__ import annotations

import asyncio
import json
import secrets

import reflex as rx

from hitl_dashboard.domain.bounded_input import load_json
from hitl_dashboard.domain.decisions import MAX_TEXT, DecisionInput, LineComment
from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import Conflict, DomainError, InvalidInput, NotFound
from hitl_dashboard.services.reviews.decide import decide
from hitl_dashboard.ui.states.app_state import AppState, path_id

MAX_DRAFTS = 50
FORM_FIELDS = ("instructions", "target", "reason", "override_reason", "args")


class DecisionState(AppState):
    # {"r<review id>": form, "c<conversation id>": {"comments": [...]}}
    drafts: str = rx.LocalStorage("{}", name="hitl_drafts", sync=True)
    forms: dict[str, dict[str, str]] = {}
    errors: dict[str, str] = {}  # review id -> message
    error_fields: dict[str, str] = {}  # review id -> the field the message is about ("" for the form)
    notice: str = ""  # about a card that is gone (decided by someone else a moment ago)
    submitting: str = ""  # the review id being sent
    comments: rx.Field[list[dict[str, str]]] = rx.field(default_factory=list)
    comment_key: rx.Field[str] = rx.field("")
    comment_line: rx.Field[int] = rx.field(0)
    comment_text: str = ""
    comment_note: str = ""
    # A suggested change (domain/suggestions.py): the exact lines, and the last line they replace.
    comment_suggest: bool = False
    comment_suggestion: str = ""
    comment_end: str = ""

    # -- drafts ---------------------------------------------------------------------------
    def _cid(self) -> str:
        return str(path_id(self.router.url.path) or "")

    def _all(self) -> dict:
        try:
            value = json.loads(self.drafts or "{}")
            return value if isinstance(value, dict) else {}
        except ValueError:
            return {}

    def _store(self, key: str, value: dict | None) -> None:
        drafts = self._all()
        drafts.pop(key, None)
        if value:
            drafts[key] = value
        self.drafts = json.dumps(dict(list(drafts.items())[-MAX_DRAFTS:]))

    @rx.event
    def load_draft(self):
        drafts = self._all()
        self.forms = {k[1:]: _clean_form(v) for k, v in drafts.items() if k.startswith("r") and isinstance(v, dict)}
        saved = drafts.get("c" + self._cid(), {})
        saved = saved.get("comments", []) if isinstance(saved, dict) else []
        self.comments = [c for c in saved if isinstance(c, dict) and {"key", "line", "text"} <= c.keys()
                         and all(isinstance(v, str) for v in c.values())]
        self.errors, self.error_fields, self.notice = {}, {}, ""
        self.comment_line, self.comment_text, self.comment_note = 0, "", ""

    @rx.event
    def set_field(self, review_id: int, name: str, value: str):
        """One field of one card's form. Only this browser's own draft changes."""
        if name not in FORM_FIELDS or not isinstance(value, str):
            return
        rid = str(int(review_id))
        value = "" if name == "target" and value == "default" else value[:MAX_TEXT]
        form = {**self._form(rid), name: value}
        self.forms = {**self.forms, rid: form}
        self._store("r" + rid, form)

    def _form(self, rid: str) -> dict[str, str]:
        form = dict(self.forms.get(rid) or {})
        form.setdefault("key", secrets.token_urlsafe(16))  # unguessable, one per draft
        return form

    def _forget_form(self, rid: str) -> None:
        self.forms = {k: v for k, v in self.forms.items() if k != rid}
        self._store("r" + rid, None)

    # -- line comments --------------------------------------------------------------------
    @rx.event
    def set_comment_text(self, value: str):
        self.comment_text = str(value)[:MAX_TEXT]

    @rx.event
    def pick_line(self, line_id: str, key: str):
        """line_id from the diff viewer: 'R-12' (new side) or 'L-12' (old side). In one column the
        viewer names an added line 'undefined-12' (it passes no prefix for it): the new side too."""
        side, _, number = str(line_id).partition("-")
        if number.isdigit():
            self._clear_comment()
            self.comment_key, self.comment_line, self.comment_text = str(key)[:255], int(number), ""
            self.comment_note = "Note: that line number is in the older revision." if side == "L" else ""

    @rx.event
    def toggle_suggest(self, line_text: str):
        """On: the suggestion starts as the commented line's text (the browser sends it from the diff
        it shows; it is only this reviewer's own draft), unless the reviewer already wrote one."""
        self.comment_suggest = not self.comment_suggest
        if self.comment_suggest and not self.comment_suggestion and isinstance(line_text, str):
            self.comment_suggestion = line_text[:MAX_TEXT]

    @rx.event
    def set_comment_suggestion(self, value: str):
        self.comment_suggestion = str(value)[:MAX_TEXT]

    @rx.event
    def set_comment_end(self, value: str):
        self.comment_end = str(value)[:7]

    @rx.event
    def add_comment(self):
        text = self.comment_text.strip()
        if self.comment_line < 1 or not (text or self.comment_suggest):
            return
        comment = {"key": self.comment_key, "line": str(self.comment_line), "text": text}
        if self.comment_suggest:
            end = self.comment_end.strip()
            if end and (not end.isdigit() or int(end) < self.comment_line):
                self.comment_note = f"The last line must be a number from {self.comment_line} on."
                return
            comment |= {"suggestion": self.comment_suggestion.replace("\r\n", "\n"), "end": end}
        self.comments = self.comments + [comment]
        self._clear_comment()
        self._store("c" + self._cid(), {"comments": self.comments})

    @rx.event
    def cancel_comment(self):
        self._clear_comment()

    def _clear_comment(self) -> None:
        self.comment_line, self.comment_text, self.comment_note = 0, "", ""
        self.comment_suggest, self.comment_suggestion, self.comment_end = False, "", ""

    @rx.event
    def remove_comment(self, index: int):
        self.comments = [c for i, c in enumerate(self.comments) if i != index]
        self._store("c" + self._cid(), {"comments": self.comments})

    # -- submit ---------------------------------------------------------------------------
    @rx.event
    async def submit(self, review_id: int, version: int, content_hash: str, action: str):
        if self.submitting:
            return
        rid = str(int(review_id))
        self.submitting, self.notice = rid, ""
        self._set_error(rid, "", "")
        yield
        try:
            actor = await self._signed_in_actor()
            decision = self._decision(rid, int(version), str(content_hash), Action(action))
            cid = path_id(self.router.url.path)
            # A card of this page decides only a review of this page's conversation.
            outcome = await asyncio.to_thread(decide, actor, int(review_id), decision, conversation_id=cid)
        except InvalidInput as exc:
            self._set_error(rid, str(exc), exc.field or "")
        except (Conflict, NotFound) as exc:
            self.notice = f"Review #{rid}: {exc}"  # the card may be gone by now: say it where it stays
        except (DomainError, ValueError) as exc:
            self._set_error(rid, str(exc), "")
        else:
            self._forget_form(rid)
            if action in (Action.REVISE, Action.ABORT):
                self.comments = []
                self._store("c" + self._cid(), None)
            yield rx.toast.success(f"{action.capitalize()} recorded" + (" (already sent)" if outcome.replayed else ""))
        finally:
            self.submitting = ""

    def _set_error(self, rid: str, message: str, field: str) -> None:
        self.errors = {**self.errors, rid: message}
        self.error_fields = {**self.error_fields, rid: field}

    def _decision(self, rid: str, version: int, content_hash: str, action: Action) -> DecisionInput:
        form = self._form(rid)
        self.forms = {**self.forms, rid: form}
        self._store("r" + rid, form)
        edited = None
        if action == Action.APPROVE and form.get("args", "").strip():
            try:
                edited = load_json(form["args"], "the arguments")
            except InvalidInput as exc:
                raise InvalidInput(str(exc), "edited_args") from None
        revise = action == Action.REVISE
        comments = tuple(_line_comment(c) for c in self.comments) if revise else ()
        return DecisionInput(
            action=action,
            reason=form.get("reason", "").strip() or None,
            instructions=(form.get("instructions", "").strip() or None) if revise else None,
            target_agent=(form.get("target") or None) if revise else None,
            edited_args=edited,
            line_comments=comments,
            idempotency_key=f"ui-{form['key']}-{action.value}",
            expected_version=version,
            expected_content_hash=content_hash,
            override_reason=form.get("override_reason", "").strip() or None,
        )


def _line_comment(c: dict[str, str]) -> LineComment:
    """A draft's comment; with "suggestion", its text is the exact lines (empty: delete the lines)."""
    if "suggestion" not in c:
        return LineComment(c["key"], int(c["line"]), c["text"])
    lines = tuple(c["suggestion"].split("\n")) if c["suggestion"] else ()
    end = c.get("end") or ""
    return LineComment(c["key"], int(c["line"]), c["text"], lines, int(end) if end.isdigit() else None)


def _clean_form(value: dict) -> dict[str, str]:
    return {k: str(v)[:MAX_TEXT] for k, v in value.items() if k in FORM_FIELDS + ("key",) and isinstance(v, str)}
