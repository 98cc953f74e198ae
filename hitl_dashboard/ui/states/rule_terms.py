"""The part of a rule form both rule forms share (the review card's and the Rules page's "New
rule"): the conditions, one row per declared argument (ticked, values one per line:
domain/rule_forms.py), the expiry and the daily cap, and the error shown beside the field it is
about. Its handlers change only this browser's own form; what is saved is checked by the services."""

from __future__ import annotations

from dataclasses import dataclass, replace

import reflex as rx

from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.rule_forms import MAX_VALUES, ConditionInput, conditions_of, row_field
from hitl_dashboard.domain.standing_rules import DEFAULT_EXPIRY_DAYS

MAX_VALUES_TEXT = MAX_VALUES * 210  # a condition's values: one per line
FIELDS = ("conditions", "expires_in_days", "daily_cap")  # beside which both forms show an error


@dataclass
class ConditionRow:
    argument: str = ""
    json_type: str = "string"
    text: str = ""  # the values, one per line ("values" would shadow the row Var's own method)
    kept: bool = True


def condition_rows(inputs: list[ConditionInput]) -> list[ConditionRow]:
    return [ConditionRow(c.argument, c.json_type, c.values, c.kept) for c in inputs]


class RuleTermsForm(rx.State, mixin=True):
    conditions: rx.Field[list[ConditionRow]] = rx.field(default_factory=list)
    expires_days: str = str(DEFAULT_EXPIRY_DAYS)
    daily_cap: str = ""
    error: str = ""
    error_field: str = ""  # the field the error is about: "condition.2", "daily_cap"; "" for the form
    sending: bool = False

    @rx.event
    def keep_condition(self, index: int, kept: bool):
        self._change_row(index, kept=bool(kept))

    @rx.event
    def set_condition_values(self, index: int, values: str):
        if isinstance(values, str):
            self._change_row(index, text=values[:MAX_VALUES_TEXT])

    def _change_row(self, index: object, **changes: object) -> None:
        """Row `index` of this browser's own form; any other index (a browser may send anything) changes nothing."""
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(self.conditions):
            self.conditions = [replace(row, **changes) if at == index else row  # type: ignore[arg-type]
                               for at, row in enumerate(self.conditions)]

    @rx.event
    def set_expires_days(self, value: str):
        self.expires_days = str(value)[:6]

    @rx.event
    def set_daily_cap(self, value: str):
        self.daily_cap = str(value)[:9]

    def _terms(self) -> tuple[list[dict], int, int | None, list[int]]:
        """(conditions, expiry days, daily cap, the row of each condition), or InvalidInput naming the field."""
        when, origin = conditions_of([ConditionInput(r.argument, r.json_type, r.text, r.kept)
                                      for r in self.conditions])
        if not when:
            raise InvalidInput("tick at least one condition and give it a value", "conditions")
        days = self.expires_days.strip()
        if not days.isdigit():
            raise InvalidInput("the expiry is a number of days", "expires_in_days")
        cap = self.daily_cap.strip()
        if cap and not cap.isdigit():
            raise InvalidInput("the daily cap is a number of decisions (or empty: no cap)", "daily_cap")
        return when, int(days), int(cap) if cap else None, origin

    def _begin_sending(self) -> list[int]:
        """A save starts: the last error goes; returns the condition rows' origin, filled by _terms."""
        self.sending, self.error, self.error_field = True, "", ""
        return []

    def _show_error(self, message: str, field: str | None = None, origin: list[int] | None = None,
                    shown: tuple[str, ...] = FIELDS) -> None:
        """shown: the fields the form has a place for; an error about any other is the form's."""
        named = row_field(field, origin or [])
        self.error, self.error_field = message, named if named in shown or named.startswith("condition.") else ""

    def _reset_terms(self, conditions: list[ConditionRow]) -> None:
        self.conditions, self.expires_days, self.daily_cap = conditions, str(DEFAULT_EXPIRY_DAYS), ""
        self.error, self.error_field, self.sending = "", "", False
