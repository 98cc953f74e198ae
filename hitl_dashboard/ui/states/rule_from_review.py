"""A review card's "Approve, and approve calls like this automatically": a small rule form, pre-filled
from the call (services/rules/from_review.rule_draft), that approves the call as the card's Approve
button does and makes the rule in shadow, both or neither (approve_and_make_rule).

The review id, version and content hash the card showed are kept server-side when the form opens
and sent back with the approval, so the server refuses it if the call changed; the approval carries
what the card's own form holds (an admin's override reason, the arguments if the reviewer typed
any: the service refuses a rule made with changed arguments)."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import reflex as rx

from hitl_dashboard.domain.enums import Action
from hitl_dashboard.domain.errors import Conflict, DomainError, InvalidInput, NotFound
from hitl_dashboard.services.rules.from_review import RuleTerms, approve_and_make_rule, rule_draft
from hitl_dashboard.ui.states.app_state import AppState, path_id
from hitl_dashboard.ui.states.browser_input import row_id
from hitl_dashboard.ui.states.decision import DecisionState
from hitl_dashboard.ui.states.rule_terms import FIELDS, RuleTermsForm, condition_rows


class RuleFromReviewState(RuleTermsForm, AppState):
    review_id: rx.Field[int] = rx.field(0)  # the card whose rule form is open (0: none), for the page
    tool: str = ""
    _review_id: int = 0  # the same, as the server opened it: what is approved (a browser may set review_id)
    _version: int = 0
    _content_hash: str = ""

    @rx.event
    async def open_rule_form(self, review_id: int, version: int, content_hash: str):
        wanted, shown = row_id(review_id), row_id(version)
        if wanted is None or shown is None or not isinstance(content_hash, str):
            return
        try:
            actor = await self._signed_in_actor()
            draft = await asyncio.to_thread(rule_draft, actor, wanted, path_id(self.router.url.path) or 0)
        except DomainError as exc:
            self.review_id = self._review_id = 0
            return rx.toast.error(str(exc))
        self._reset_terms(condition_rows(draft.conditions))
        self.review_id = self._review_id = draft.review_id
        self.tool = draft.tool
        self._version, self._content_hash = shown, content_hash[:128]

    @rx.event
    def close_rule_form(self):
        self.review_id = self._review_id = 0
        self.conditions, self.error, self.error_field = [], "", ""

    @rx.event
    async def save_rule(self):
        if self.sending or not self._review_id:
            return
        origin = self._begin_sending()
        yield
        rid = str(self._review_id)
        card = await self.get_state(DecisionState)
        try:
            when, days, cap, origin = self._terms()
            actor = await self._signed_in_actor()
            decision = card._decision(rid, self._version, self._content_hash, Action.APPROVE)
            # Not the Approve button's key: an approval already sent by that button is no replay of this one.
            decision = replace(decision, idempotency_key=f"{decision.idempotency_key}-rule")
            _, rule = await asyncio.to_thread(approve_and_make_rule, actor, self._review_id, decision,
                                              RuleTerms(when, days, cap), path_id(self.router.url.path) or 0)
        except InvalidInput as exc:
            self._show_error(str(exc), exc.field, origin, (*FIELDS, "edited_args", "override_reason"))
        except (Conflict, NotFound) as exc:
            # The card may be gone by now (decided or claimed by someone else): say it where it stays.
            card.notice = f"Review #{rid}: {exc}. No rule was made."
            self._show_error(f"{exc}. No rule was made.")
        except (DomainError, ValueError) as exc:
            self._show_error(str(exc))
        else:
            card._forget_form(rid)
            self.review_id = self._review_id = 0
            self.conditions = []
            yield rx.toast.success(f"Approved, and rule {rule.id} made in shadow: it decides nothing until a "
                                   "second person makes it active on the Rules page")
        finally:
            self.sending = False
