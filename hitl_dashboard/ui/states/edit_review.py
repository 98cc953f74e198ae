"""Edit and approve: the reviewer opens the content under review in the code editor
(ui/components/code_editor.py), changes it, and approves their own version.

The editor's text stays in the browser while they type; "Approve with my changes" sends the texts
they changed once, with the review id, version and content hash the editor was opened on (held
here, server-side), through the same decide use case as every other decision."""

from __future__ import annotations

import asyncio
import json
import secrets
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.decisions import DecisionInput
from hitl_dashboard.domain.edits import MAX_EDITED_FILE_CHARS, MAX_EDITED_FILES, MESSAGE_KEY
from hitl_dashboard.domain.enums import Action, SubjectType
from hitl_dashboard.domain.errors import DomainError, InvalidInput
from hitl_dashboard.services.reviews.decide import decide
from hitl_dashboard.services.reviews.edits import editable_content
from hitl_dashboard.ui.components.code_editor import FORGET_EDITS
from hitl_dashboard.ui.states.app_state import AppState, path_id

# The JSON the browser sends: every file at its limit, plus room for the JSON around them.
MAX_PAYLOAD_CHARS = MAX_EDITED_FILES * (MAX_EDITED_FILE_CHARS + 300)


@dataclass
class EditFile:
    key: str = ""
    language: str = "text"
    text: str = ""


class EditReviewState(AppState):
    review_id: rx.Field[int] = rx.field(0)  # the review whose editor is open (0: none)
    files: rx.Field[list[EditFile]] = rx.field(default_factory=list)
    error: str = ""
    sending: bool = False
    _version: int = 0
    _content_hash: str = ""
    _subject_type: str = ""
    _key: str = ""  # the idempotency key of this editing session's approval

    @rx.event
    async def open_editor(self, review_id: int):
        """Loads what the review covers, as it was hashed; only for a reviewer who may decide it."""
        self.error = ""
        try:
            actor = await self._signed_in_actor()
            shown = await asyncio.to_thread(editable_content, actor, int(review_id), path_id(self.router.url.path) or 0)
        except (DomainError, ValueError) as exc:
            self.review_id, self.files = 0, []
            yield rx.toast.error(str(exc))
            return
        self.review_id, self._version, self._content_hash = shown.review_id, shown.version, shown.content_hash
        self._subject_type, self._key = shown.subject_type, secrets.token_urlsafe(16)
        self.files = [EditFile(key, language, text) for key, language, text in shown.files]
        yield rx.call_script(FORGET_EDITS)  # texts typed for another review must not go out with this one

    @rx.event
    def close_editor(self):
        self.review_id, self.files, self.error = 0, [], ""
        return rx.call_script(FORGET_EDITS)

    @rx.event
    async def approve_edited(self, payload: str):
        """payload: the browser's {file key: text} of the files changed in the editor."""
        if self.sending or not self.review_id:
            return
        self.sending, self.error = True, ""
        yield
        try:
            actor = await self._signed_in_actor()
            decision = self._decision(payload)
            cid = path_id(self.router.url.path)
            outcome = await asyncio.to_thread(decide, actor, self.review_id, decision, conversation_id=cid)
        except (DomainError, ValueError) as exc:
            self.error = str(exc)
        else:
            self.review_id, self.files = 0, []
            yield rx.call_script(FORGET_EDITS)
            yield rx.toast.success("Approved with your changes" + (" (already sent)" if outcome.replayed else ""))
        finally:
            self.sending = False

    def _decision(self, payload: str) -> DecisionInput:
        if not isinstance(payload, str) or len(payload) > MAX_PAYLOAD_CHARS:
            raise InvalidInput("the edited text is too large", "edited_files")
        texts = json.loads(payload or "{}")
        if not isinstance(texts, dict) or not all(isinstance(v, str) for v in texts.values()):
            raise InvalidInput("the editor sent something that is not text", "edited_files")
        if not texts:
            raise InvalidInput("you have not changed anything: approve it as it is", "edited_files")
        is_message = self._subject_type == SubjectType.MESSAGE
        return DecisionInput(
            action=Action.APPROVE, edited_files=None if is_message else texts,
            edited_text=texts.get(MESSAGE_KEY, "") if is_message else None,
            idempotency_key=f"ui-edit-{self._key}", expected_version=self._version,
            expected_content_hash=self._content_hash,
        )
