"""A rule's evidence on the Rules page (issue 42: "the page shows agreements and every
disagreement"), read through services/rules/rule_evidence.py, which answers a rule of another
workspace as not found. Opening it changes only what this browser shows."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass

import reflex as rx

from hitl_dashboard.domain.errors import DomainError
from hitl_dashboard.services.rules import rule_evidence
from hitl_dashboard.ui import routes
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.browser_input import row_id


@dataclass
class ObservedRow:
    key: str = ""
    href: str = ""
    call: str = ""  # "call #12"
    arguments: str = ""  # JSON text, never markup
    would: str = ""
    did: str = ""  # "approve", "approve (edited)", "revise"
    by: str = ""
    at: str = ""
    version: int = 0


def observed_row(seen: rule_evidence.Observed) -> ObservedRow:
    what = f"call #{seen.tool_call_id}" if seen.tool_call_id is not None else f"sign-off #{seen.review_request_id}"
    return ObservedRow(f"{seen.review_request_id}-{seen.at}", routes.conversation(seen.conversation_id), what,
                       json.dumps(seen.arguments, sort_keys=True)[:500], seen.would,
                       seen.human_action + (" (edited)" if seen.human_edited else ""), seen.decided_by,
                       seen.at.replace("T", " "), seen.rule_version)


class RuleEvidenceState(AppState):
    evidence_of: int = 0  # the rule shown; 0: none
    evidence_title: str = ""
    disagreement_rows: rx.Field[list[ObservedRow]] = rx.field(default_factory=list)
    agreement_rows: rx.Field[list[ObservedRow]] = rx.field(default_factory=list)
    evidence_error: str = ""

    @rx.event
    async def open_evidence(self, rule_id: int):
        wanted = row_id(rule_id)
        if wanted is None:
            return
        try:
            actor = await self._acting_actor()
            found = await asyncio.to_thread(rule_evidence.rule_evidence, actor, wanted)
        except DomainError as exc:
            self.evidence_of, self.evidence_error = 0, str(exc)
            return
        rule = found.rule
        self.evidence_of, self.evidence_error = rule.id, ""
        self.evidence_title = f"Rule {rule.id} (version {rule.version}, {rule.state}): {rule.effect} {rule.tool} " \
                              f"of {rule.team} when {rule.when}"
        self.disagreement_rows = [observed_row(s) for s in found.disagreements]
        self.agreement_rows = [observed_row(s) for s in found.agreements]

    @rx.event
    def close_evidence(self):
        self.evidence_of, self.disagreement_rows, self.agreement_rows = 0, [], []
