"""The admin page's team form (ui/views/team_form.py): a team's document through the form and back
is the same document; edits land where the team file keeps them; unreadable numbers are named."""

from __future__ import annotations

import dataclasses

from hitl_dashboard.teams.catalogue import get_team
from hitl_dashboard.ui.views.team_form import apply_form, form_of


def test_every_builtin_team_survives_the_form_unchanged() -> None:
    for name in ("code", "copy", "ops", "auto"):
        document = get_team(name).model_dump(mode="json")
        again, problems = apply_form(document, form_of(document))
        assert problems == {} and again == {**document, "sla_hours": document["sla_hours"] or {}}, name


def test_edits_land_in_the_document_and_bad_numbers_are_named() -> None:
    document = get_team("ops").model_dump(mode="json")
    form = form_of(document)
    form.keywords = "rm -rf, DROP TABLE"
    form.sla = [dataclasses.replace(row, hours="2.5" if row.role == "security_reviewer" else row.hours)
                for row in form.sla]
    form.tools = [dataclasses.replace(form.tools[0], approval="when", when_argument="environment",
                                      when_equals="production")]
    form.agents[1].prompt = "Deploy carefully."
    edited, problems = apply_form(document, form)
    assert problems == {}
    assert edited["gates"]["keywords"] == ["rm -rf", "DROP TABLE"]
    assert edited["sla_hours"] == {"security_reviewer": 2.5}
    assert edited["tools"]["deploy_to_prod"]["when"] == {"argument": "environment", "equals": "production"}
    assert edited["agents"][1]["system_prompt"] == "Deploy carefully."
    assert document["agents"][1]["system_prompt"] != "Deploy carefully."  # the original is untouched

    form.min_confidence, form.max_turns = "high", "1.5"
    _, problems = apply_form(document, form)
    assert problems == {"gates.min_confidence": "a number", "gates.max_turns_without_review": "a whole number"}
