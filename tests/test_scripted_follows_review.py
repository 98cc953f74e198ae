"""The offline scripted model tells a coherent story: the planner states the task type its team gave
it, and the coder's next revision does what the reviewer asked: suggested lines as written, line
comments on their lines, recognised instructions as real edits, and says what it did."""

from __future__ import annotations

import asyncio

import pytest
from autogen_core.models import AssistantMessage, LLMMessage, SystemMessage, UserMessage
from sqlmodel import Session, select

from hitl_dashboard.agents.scripted.model import ScriptedChatCompletionClient
from hitl_dashboard.agents.teams import planner_prompt_tail
from hitl_dashboard.db.engine import get_engine
from hitl_dashboard.db.models import AuditEvent
from hitl_dashboard.domain.decisions import LineComment
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.revise_message import revise_message
from hitl_dashboard.domain.suggestions import SuggestionState
from hitl_dashboard.teams.catalogue import catalogue
from tests.support import flow

TASK = "Add retry with exponential backoff to the payment client"
EMAIL_TASK = "Write an email announcing the retry helper to the payments team"


def answer(role: str, messages: list[LLMMessage]) -> str:
    result = asyncio.run(ScriptedChatCompletionClient(role).create(messages))
    assert isinstance(result.content, str)
    return result.content


def planner_prompt(team: str) -> SystemMessage:
    definition = catalogue().teams[team]
    return SystemMessage(content="You are the planner." + planner_prompt_tail(definition, "planner"))


def test_the_planner_states_the_task_type_its_team_gives_it():
    # The task reads like copy, but the code team was asked for: the plan says code.
    plan = answer("planner", [planner_prompt("code"), UserMessage(content=EMAIL_TASK, source="frank")])
    assert plan.startswith("TASK TYPE: code\n")
    copy_plan = answer("planner", [planner_prompt("copy"), UserMessage(content=TASK, source="frank")])
    assert copy_plan.startswith("TASK TYPE: copy\n")
    # A team serving several types leaves the choice to its planner.
    assert planner_prompt_tail(catalogue().teams["auto"], "planner") == ""
    assert answer("planner", [planner_prompt("auto"), UserMessage(content=EMAIL_TASK, source="frank")]).startswith(
        "TASK TYPE: copy\n")


def revised(instructions: str | None, *comments: LineComment) -> tuple[str, str]:
    """(the first draft, the coder's answer to a REVISE with these instructions and comments)."""
    task = UserMessage(content=TASK, source="frank")
    draft = answer("coder", [task])
    message = revise_message(target="coder", instructions=instructions, line_comments=comments,
                             reviewer="alice", role="security_reviewer")
    return draft, answer("coder", [task, AssistantMessage(content=draft, source="coder"),
                                   UserMessage(content=message, source="alice")])


def code_of(answer_text: str) -> list[str]:
    return answer_text.split("```python\n", 1)[1].split("\n```", 1)[0].split("\n")


def test_the_coder_applies_a_suggestion_exactly_and_follows_the_rest_of_the_review():
    draft, reply = revised(
        "rename call_with_retry to retry_call and add logging",
        LineComment("app/retry.py", 5, "three attempts", ("MAX_ATTEMPTS = 3  # the API rate-limits us",)),
        LineComment("app/retry.py", 6, "", ("BASE_DELAY_S = 0.5", "MAX_DELAY_S = 8.0"), 6),
        LineComment("app/retry.py", 9, "why full jitter?"),
    )
    assert code_of(draft)[4:6] == ["MAX_ATTEMPTS = 5", "BASE_DELAY_S = 0.2"]
    code = code_of(reply)
    assert "MAX_ATTEMPTS = 3  # the API rate-limits us" in code
    at = code.index("BASE_DELAY_S = 0.5")
    assert code[at + 1] == "MAX_DELAY_S = 8.0" and "MAX_ATTEMPTS = 5" not in code
    assert any(line.startswith("def retry_call(") for line in code) and "logger = logging.getLogger(__name__)" in code
    assert any("# Review (line 9): why full jitter?" in line for line in code)
    for said in ("applied the suggested change to app/retry.py line 5 exactly as written",
                 "applied the suggested change to app/retry.py line 6 exactly as written",
                 "renamed call_with_retry to retry_call", "added logging", "noted the comment on line 9"):
        assert f"- {said}" in reply


def test_a_suggestion_alone_changes_only_its_lines():
    draft, reply = revised(None, LineComment("app/retry.py", 5, "", ("MAX_ATTEMPTS = 3",)))
    before, after = code_of(draft), code_of(reply)
    assert after == before[:4] + ["MAX_ATTEMPTS = 3"] + before[5:]
    assert "review note" not in reply


def test_what_the_coder_cannot_do_it_says():
    _, reply = revised("make it feel more enterprise-ready",
                       LineComment("app/gone.py", 2, "", ("x = 1",)),
                       LineComment("app/retry.py", 900, "", ("x = 1",)))
    assert "could not apply the suggestion for app/gone.py line 2: there is no such file" in reply
    assert "could not apply the suggestion for app/retry.py line 900: those lines are not in the file" in reply
    assert 'found no code change I know how to make in "make it feel more enterprise-ready"' in reply
    assert "# Review: make it feel more enterprise-ready" in reply


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_suggestion_goes_out_with_a_revise_and_the_next_revision_is_judged_on_it(db_url):
    flow.make_people()
    cid = flow.start(TASK)
    flow.work()
    review = flow.only_open_review(cid)
    with pytest.raises(InvalidInput, match="has no file app/nothing.py"):
        flow.decide_as("alice", review.id, "revise",
                       line_comments=(LineComment("app/nothing.py", 1, "", ("x = 1",)),))
    with pytest.raises(InvalidInput, match=r"app/retry.py r1 has \d+ lines: lines 400-401 are past its end"):
        flow.decide_as("alice", review.id, "revise",
                       line_comments=(LineComment("app/retry.py", 400, "", ("x = 1",), 401),))
    suggestion = LineComment("app/retry.py", 5, "three", ("MAX_ATTEMPTS = 3",))
    flow.decide_as("alice", review.id, "revise", line_comments=(suggestion,))
    [waiting] = flow.detail(cid).suggestions
    assert (waiting.outcome.state, waiting.revision, waiting.next_revision) == (SuggestionState.WAITING, 1, None)

    flow.work()
    [judged] = flow.detail(cid).suggestions
    assert (judged.outcome.state, judged.revision, judged.next_revision) == (SuggestionState.APPLIED, 1, 2)
    assert (judged.reviewer, judged.key, judged.line, judged.lines) == ("alice", "app/retry.py", 5,
                                                                        ("MAX_ATTEMPTS = 3",))
    with Session(get_engine()) as session:
        event = session.exec(select(AuditEvent).where(AuditEvent.conversation_id == cid,
                                                      AuditEvent.action == "decision.recorded")).one()
        r1 = next(r for r in flow.detail(cid).revisions if r.key == "app/retry.py" and r.number == 1)
    assert event.details["suggestions"] == [{"key": "app/retry.py", "line": 5, "end_line": 5, "revision_id": r1.id,
                                             "lines": ["MAX_ATTEMPTS = 3"]}]
    reply = next(m.content for m in flow.messages(cid) if m.source == "coder" and "Revision 2" in m.content)
    assert "applied the suggested change to app/retry.py line 5 exactly as written" in reply
