"""A reviewer's question is answered by the asked agent's own model client (issue 28): the team
version the conversation is pinned to gives the coder a model behind an OpenAI-protocol stub on
127.0.0.1; the question reaches that stub with the coder's system prompt and the conversation so
far, and the stub's words are the answer, labelled with its model. With the stub down the thread
shows the failure and the review stays open; a retry works once the stub is back."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from hitl_dashboard.domain.errors import Conflict, PermissionDenied
from hitl_dashboard.services.questions.answering import answer_open_questions
from hitl_dashboard.services.questions.questions import ask_question, retry_question, review_questions
from hitl_dashboard.services.reviews.claims import claim
from hitl_dashboard.services.teams import team_queries
from hitl_dashboard.settings import reset_settings_cache
from hitl_dashboard.ui.views.findings_view import question_rows
from tests.support import flow
from tests.support.openai_stub import OpenAIStub

MODEL_INFO = "{vision: false, function_calling: true, json_output: false, family: unknown, structured_output: false}"
CODE = ("```python\n# file: app/shell_runner.py\nimport subprocess\n\n\ndef run_command(cmd):\n"
        "    return subprocess.call(cmd, shell=True)\n```\nCONFIDENCE: 0.9\nReady for review.")
CODER_PROMPT = "You are the coder of stub-coders. Propose files in fenced blocks."
STUB_ANSWER = "shell=True because the callers pass pipelines; a revision can switch to an argument list."


def team_file(coder_url: str) -> str:
    return f"""
name: stub-coders
description: Plans with the scripted model, codes on a stub endpoint.
agents:
  - name: planner
    description: Plans the work
    system_prompt: "Plan it. Start with 'TASK TYPE: code'."
    model: planning
  - name: coder
    description: Writes the code
    system_prompt: "{CODER_PROMPT}"
    model: coding
models:
  planning: {{provider: scripted}}
  coding:
    provider: autogen_ext.models.openai.OpenAIChatCompletionClient
    config: {{model: code-model-q, base_url: "{coder_url}", api_key: "", model_info: {MODEL_INFO}}}
speaker_order: {{mode: planner_then_producer, planner: planner}}
task_types:
  code: {{producer: coder, sign_off: [security_reviewer, final_approver]}}
gates: {{mode: after_agent}}
"""


@pytest.fixture
def coder_stub(db_url, monkeypatch) -> Iterator[OpenAIStub]:
    """The team imported by an admin; a failing model gives up after two quick attempts."""
    monkeypatch.setenv("MODEL_MAX_RETRIES", "2")
    monkeypatch.setenv("MODEL_RETRY_BASE_S", "0.01")
    reset_settings_cache()
    with OpenAIStub() as stub:
        flow.make_people()
        team_queries.save_team(flow.actor("erin"), team_file(stub.base_url), origin="import")
        yield stub


def _review_after_the_coders_turn(stub: OpenAIStub) -> tuple[int, int]:
    stub.enqueue(CODE)
    cid = flow.start("Write a helper to run a shell command", template="stub-coders")
    flow.work()
    review = flow.only_open_review(cid)
    claim(flow.actor("alice"), review.id)
    return cid, review.id


def test_the_coders_own_model_answers_with_its_prompt_and_the_conversation(coder_stub) -> None:
    cid, review_id = _review_after_the_coders_turn(coder_stub)
    turns = len(coder_stub.requests)
    ask_question(flow.actor("alice"), review_id, "Why shell=True?", key="app/shell_runner.py", line=6)
    coder_stub.enqueue(STUB_ANSWER)
    assert asyncio.run(answer_open_questions()) == 1

    [request] = coder_stub.requests[turns:]
    assert request["model"] == "code-model-q"
    sent = request["messages"]
    assert sent[0]["role"] == "system" and sent[0]["content"].startswith(CODER_PROMPT)
    # The conversation so far: the task and the coder's own turn as its own (assistant) message.
    assert any(m["role"] == "user" and "run a shell command" in str(m["content"]) for m in sent[1:-1])
    assert any(m["role"] == "assistant" and "subprocess.call(cmd, shell=True)" in str(m["content"]) for m in sent)
    assert sent[-1]["role"] == "user" and "Why shell=True?" in sent[-1]["content"]
    assert "app/shell_runner.py line 6" in sent[-1]["content"]

    [thread] = review_questions(flow.actor("bob"), review_id)
    assert (thread.status, thread.answer, thread.model, thread.error) == ("answered", STUB_ANSWER, "code-model-q",
                                                                           None)
    answer = flow.messages(cid)[-1]
    assert (answer.kind, answer.source, answer.model) == ("answer", "coder", "code-model-q")
    assert answer.content == f"ANSWER to question #{thread.id}: {STUB_ANSWER}"


def test_a_model_that_is_down_shows_on_the_thread_and_a_retry_answers_once_it_is_back(coder_stub, db_url) -> None:
    cid, review_id = _review_after_the_coders_turn(coder_stub)
    port = coder_stub.port
    coder_stub.__exit__(None, None, None)  # the endpoint goes away: connections are refused
    question = ask_question(flow.actor("alice"), review_id, "Why not a list of arguments?")
    assert asyncio.run(answer_open_questions()) == 1

    [failed] = review_questions(flow.actor("alice"), review_id)
    assert failed.status == "failed" and failed.answer is None
    assert "127.0.0.1" in failed.error and str(port) in failed.error  # says which endpoint failed
    [row] = question_rows([failed])
    assert (row.status, row.answer, row.error) == ("failed", "", failed.error)  # the card's failure line
    assert flow.messages(cid)[-1].content.startswith(f"NO ANSWER to question #{question.id}: the agent's model failed")
    review = flow.only_open_review(cid)
    assert (review.id, review.status) == (review_id, "claimed")  # the review stays open, still alice's
    assert flow.conversation(cid).status == "awaiting_review"

    with pytest.raises(PermissionDenied):
        retry_question(flow.actor("bob"), review_id, question.id)  # who may not ask may not retry
    with OpenAIStub(port) as back:
        back.enqueue(STUB_ANSWER)
        retried = retry_question(flow.actor("alice"), review_id, question.id)
        assert retried.status == "open"
        assert asyncio.run(answer_open_questions()) == 1
        assert len(back.requests) == 1
    [answered] = review_questions(flow.actor("alice"), review_id)
    assert (answered.id, answered.status, answered.answer, answered.error) == (question.id, "answered", STUB_ANSWER,
                                                                               None)
    with pytest.raises(Conflict, match="only a failed question"):
        retry_question(flow.actor("alice"), review_id, question.id)
