"""Model clients: the offline scripted model, and the OpenAI client + retries against a real HTTP stub."""

from __future__ import annotations

import ast
import asyncio
import json
import re
import socket
import time
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.base import TaskResult
from autogen_agentchat.messages import ModelClientStreamingChunkEvent, TextMessage, ToolCallExecutionEvent
from autogen_core import CancellationToken, FunctionCall
from autogen_core.models import (
    AssistantMessage,
    CreateResult,
    FunctionExecutionResult,
    FunctionExecutionResultMessage,
    LLMMessage,
    SystemMessage,
    UserMessage,
)
from autogen_core.tools import FunctionTool

from hitl_dashboard.agents.errors import ModelCallFailed
from hitl_dashboard.agents.model_clients import ModelSpec, build_model_client
from hitl_dashboard.agents.retrying import RetryingChatCompletionClient
from hitl_dashboard.agents.scripted.model import ScriptedChatCompletionClient
from tests.support.openai_stub import (
    BrokenStreamReply,
    ErrorReply,
    GarbageReply,
    HangReply,
    OpenAIStub,
    ToolCallReply,
)

SYSTEM = SystemMessage(content="You are part of a reviewed team.")
CODE_TASK = "Add retry with exponential backoff to the payment client"
DEPLOY_TASK = "Deploy billing-api v2.3.1 to production"
BLOCK = re.compile(r"```python\n(# file: (\S+)\n.*?)```", re.S)


def ask(role: str, messages: list[LLMMessage], **kwargs: Any) -> CreateResult:
    return asyncio.run(ScriptedChatCompletionClient(role).create(messages, **kwargs))


def task(text: str) -> UserMessage:
    return UserMessage(content=text, source="user")


def code_blocks(text: str) -> dict[str, str]:
    return {path: code for code, path in BLOCK.findall(text)}


# -- scripted model ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (CODE_TASK, "code"),
        ("Write a landing page headline for Pulse, our analytics dashboard", "copy"),
        (DEPLOY_TASK, "ops"),
        ("Plan the rollout of the new search cluster", "ops"),
    ],
)
def test_planner_names_task_type_first_and_confidence_last(text: str, kind: str) -> None:
    lines = ask("planner", [SYSTEM, task(text)]).content.splitlines()  # type: ignore[union-attr]
    assert lines[0] == f"TASK TYPE: {kind}"
    assert re.fullmatch(r"CONFIDENCE: 0\.\d\d", lines[-1])
    assert any(re.match(r"\d+\. ", line) for line in lines)


def test_coder_writes_a_fenced_python_module_named_by_its_first_line() -> None:
    result = ask("coder", [SYSTEM, task(CODE_TASK)])
    blocks = code_blocks(result.content)  # type: ignore[arg-type]
    assert list(blocks) == ["app/retry.py"]
    ast.parse(blocks["app/retry.py"])  # real Python
    assert 15 <= len(blocks["app/retry.py"].splitlines()) <= 40
    assert re.search(r"CONFIDENCE: 0\.\d\d\nReady for review\.$", result.content)  # type: ignore[arg-type]
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0


def _revise(instruction: str, source: str = "security_reviewer") -> tuple[str, str]:
    history: list[LLMMessage] = [SYSTEM, task(CODE_TASK)]
    first = ask("coder", history).content
    history += [AssistantMessage(content=first, source="coder"), UserMessage(content=instruction, source=source)]
    second = ask("coder", history).content
    return code_blocks(first)["app/retry.py"], code_blocks(second)["app/retry.py"]  # type: ignore[arg-type]


def test_coder_revision_follows_revise_instruction_and_keeps_the_file_name() -> None:
    before, after = _revise("REVISE @coder: add a timeout")
    assert after != before
    assert "timeout" in after and "timeout" not in before
    ast.parse(after)


@pytest.mark.parametrize(
    ("instruction", "expected"),
    [
        ("REVISE @coder: add logging", "logging.getLogger(__name__)"),
        ("REVISE: please add type hints", "def backoff_delay(attempt: int"),
        ("REVISE @coder: add docstrings", '"""Call with retry."""'),
        ("REVISE @coder: validate the inputs", 'raise ValueError("attempts must be positive")'),
        ("Changes requested. Instructions: rename call_with_retry to retry_call", "def retry_call("),
        ("REVISE @coder: line 9: why is this public?", "# Review (line 9): why is this public?"),
        ("REVISE @coder: make it enterprise grade", "# Review: make it enterprise grade"),
    ],
)
def test_coder_recognises_common_review_instructions(instruction: str, expected: str) -> None:
    before, after = _revise(instruction, source="product_reviewer")
    assert expected in after and expected not in before
    ast.parse(after)


def test_coder_understands_the_dashboards_revise_message() -> None:
    # The shape services/decide.py sends: target, instructions, line comments keyed by file, signature.
    message = (
        "REVISE @coder\nInstructions: add logging\nLine comments:\n"
        "- app/retry.py line 5: why five attempts?\n(from alice, security_reviewer)"
    )
    before, after = _revise(message)
    assert "logging.getLogger" in after and "# Review (line 5): why five attempts?" in after
    lines = after.splitlines()
    note = lines.index("# Review (line 5): why five attempts?")
    assert lines[note + 1] == before.splitlines()[4] == "MAX_ATTEMPTS = 5"  # right above the commented line
    assert "alice" not in after


def test_coder_ignores_instructions_addressed_to_another_agent() -> None:
    before, after = _revise("REVISE @planner: split step 2")
    assert after == before


def test_copywriter_writes_markdown_copy_and_revises_it() -> None:
    brief = task("Write a launch announcement for Pulse, our analytics dashboard")
    first = ask("copywriter", [SYSTEM, brief]).content
    assert isinstance(first, str)
    assert first.startswith("# ") and re.search(r"^\*\*.+\*\*$", first, re.M) and "CONFIDENCE: 0." in first
    instruction = "REVISE @copywriter: shorter, more formal, mention the free trial"
    revise = UserMessage(content=instruction, source="product_reviewer")
    previous = AssistantMessage(content=first, source="copywriter")
    second = ask("copywriter", [SYSTEM, brief, previous, revise]).content
    assert isinstance(second, str) and second != first
    assert "free trial" in second and "It's" not in second and len(second) < len(first) + 80


def test_operator_requests_deploy_to_prod_with_arguments_from_the_task() -> None:
    result = ask("operator", [SYSTEM, task(DEPLOY_TASK)])
    assert isinstance(result.content, list) and len(result.content) == 1
    call = result.content[0]
    assert isinstance(call, FunctionCall) and call.name == "deploy_to_prod" and call.id
    expected = {"service": "billing-api", "version": "2.3.1", "environment": "production"}
    assert json.loads(call.arguments) == expected


def _after_decision(decision: str, source: str) -> str:
    call = ask("operator", [task(DEPLOY_TASK)]).content[0]  # type: ignore[index]
    assert isinstance(call, FunctionCall)
    result = "PENDING_APPROVAL: deploy_to_prod is waiting for human approval and has not run."
    pending = FunctionExecutionResult(content=result, name="deploy_to_prod", call_id=call.id)
    history: list[LLMMessage] = [
        task(DEPLOY_TASK),
        AssistantMessage(content=[call], source="operator"),
        FunctionExecutionResultMessage(content=[pending]),
        UserMessage(content=decision, source=source),
    ]
    report = ask("operator", history).content
    assert isinstance(report, str)
    return report


EDITED = '{"environment": "production", "service": "billing-api", "version": "2.3.2"}'


@pytest.mark.parametrize(
    "decision",
    [
        "DENIED. Reason: change freeze until Monday",
        # the exact shape services/decide.py sends
        f"DENIED tool call deploy_to_prod({EDITED}): it was not run. "
        "Reviewer bob says: change freeze until Monday",
    ],
)
def test_operator_reports_a_denial_with_the_reviewers_reason(decision: str) -> None:
    report = _after_decision(decision, "security_reviewer")
    assert "denied by security_reviewer" in report and "Reason: change freeze until Monday" in report
    assert report.endswith("DONE")


@pytest.mark.parametrize(
    "decision",
    [
        f"APPROVED with arguments {EDITED}",
        # the exact shape services/tool_execution.py sends
        f"APPROVED tool call deploy_to_prod({EDITED}) ran. Result: Deployed billing-api 2.3.2 (dep-1).",
    ],
)
def test_operator_reports_success_with_the_approved_edited_arguments(decision: str) -> None:
    report = _after_decision(decision, "tool_runner")
    assert "succeeded" in report and "version=2.3.2" in report and report.endswith("DONE")


def test_operator_waits_while_the_call_is_pending() -> None:
    pending = "PENDING_APPROVAL: deploy_to_prod is waiting for human approval and has not run."
    report = _after_decision(pending, "tool_runner")
    assert "waiting for human approval" in report and "DONE" not in report


def test_streaming_chunks_join_to_the_final_content_and_usage_accumulates() -> None:
    client = ScriptedChatCompletionClient("coder")

    async def collect() -> list[str | CreateResult]:
        return [item async for item in client.create_stream([SYSTEM, task(CODE_TASK)])]

    items = asyncio.run(collect())
    *chunks, final = items
    assert isinstance(final, CreateResult) and len(chunks) > 20
    assert all(isinstance(c, str) for c in chunks) and "".join(chunks) == final.content  # type: ignore[arg-type]
    assert final.usage.prompt_tokens > 0 and final.usage.completion_tokens > 0
    asyncio.run(client.create([task("again")]))
    assert client.total_usage().completion_tokens > final.usage.completion_tokens


def test_streaming_a_function_call_yields_only_the_result() -> None:
    async def collect() -> list[str | CreateResult]:
        return [i async for i in ScriptedChatCompletionClient("operator").create_stream([task(DEPLOY_TASK)])]

    (only,) = asyncio.run(collect())
    assert isinstance(only, CreateResult) and isinstance(only.content, list)


def test_delay_simulates_a_slow_model_and_honours_cancellation() -> None:
    async def timed(token: CancellationToken | None) -> float:
        started = time.perf_counter()
        slow = ScriptedChatCompletionClient("planner", delay_ms=300)
        await slow.create([task(CODE_TASK)], cancellation_token=token)
        return time.perf_counter() - started

    assert asyncio.run(timed(None)) >= 0.3

    async def cancelled_quickly() -> float:
        token = CancellationToken()
        asyncio.get_running_loop().call_later(0.05, token.cancel)
        started = time.perf_counter()
        with pytest.raises(asyncio.CancelledError):
            await timed(token)
        return time.perf_counter() - started

    assert asyncio.run(cancelled_quickly()) < 0.25


def test_scripted_coder_streams_inside_an_autogen_assistant_agent() -> None:
    agent = AssistantAgent("coder", model_client=ScriptedChatCompletionClient("coder"), model_client_stream=True)

    async def run() -> list[Any]:
        return [event async for event in agent.run_stream(task=CODE_TASK)]

    events = asyncio.run(run())
    chunks = [e for e in events if isinstance(e, ModelClientStreamingChunkEvent)]
    (message,) = [e for e in events if isinstance(e, TextMessage) and e.source == "coder"]
    assert isinstance(events[-1], TaskResult)
    assert chunks and "".join(c.content for c in chunks) == message.content
    assert chunks[0].full_message_id == message.id and "# file: app/retry.py" in message.content
    assert message.models_usage is not None and message.models_usage.completion_tokens > 0


# -- OpenAI client over real HTTP ---------------------------------------------------------------------
@pytest.fixture
def stub():
    with OpenAIStub() as running:
        yield running


def openai_client(stub: OpenAIStub, **overrides: Any) -> RetryingChatCompletionClient:
    spec = ModelSpec(provider="openai", model="stub-model", base_url=stub.base_url, api_key="test-key",
                     timeout_s=2.0, max_retries=3, retry_base_delay_s=0.01)
    client = build_model_client(spec.model_copy(update=overrides), "coder")
    assert isinstance(client, RetryingChatCompletionClient)
    return client


def test_openai_plain_text(stub: OpenAIStub) -> None:
    stub.enqueue("Here is the plan.")
    result = asyncio.run(openai_client(stub).create([SYSTEM, task(CODE_TASK)]))
    assert result.content == "Here is the plan." and result.usage.completion_tokens > 0
    (request,) = stub.requests
    assert request["model"] == "stub-model" and "stream_options" not in request
    assert request["messages"][-1]["content"] == CODE_TASK


def test_openai_streaming_reports_usage(stub: OpenAIStub) -> None:
    stub.enqueue("streamed words arrive one by one")

    async def collect() -> list[str | CreateResult]:
        return [i async for i in openai_client(stub).create_stream([task(CODE_TASK)])]

    *chunks, final = asyncio.run(collect())
    assert isinstance(final, CreateResult)
    assert "".join(chunks) == final.content == "streamed words arrive one by one"  # type: ignore[arg-type]
    assert final.usage.prompt_tokens > 0 and final.usage.completion_tokens > 0
    assert stub.requests[0]["stream"] is True and stub.requests[0]["stream_options"] == {"include_usage": True}


def test_openai_tool_call_round_trip_and_history_reach_the_model(stub: OpenAIStub) -> None:
    executed: list[dict[str, str]] = []

    async def deploy_to_prod(service: str, version: str, environment: str) -> str:
        executed.append({"service": service, "version": version, "environment": environment})
        return f"deployed {service} {version}"

    arguments = {"service": "billing-api", "version": "2.3.1", "environment": "production"}
    stub.enqueue(ToolCallReply("deploy_to_prod", arguments), "Deployment finished. DONE", "Noted the freeze.")
    tool = FunctionTool(deploy_to_prod, description="Deploy a service")
    agent = AssistantAgent("operator", model_client=openai_client(stub), model_client_stream=True,
                           tools=[tool], reflect_on_tool_use=True)

    async def run() -> list[Any]:
        first = [e async for e in agent.run_stream(task=DEPLOY_TASK)]
        resume = TextMessage(source="security_reviewer", content="REVISE @operator\nInstructions: respect the freeze")
        return first + [e async for e in agent.run_stream(task=resume)]

    events = asyncio.run(run())
    assert executed == [arguments]
    assert any(isinstance(e, ToolCallExecutionEvent) for e in events)
    assert stub.requests[0]["tools"][0]["function"]["name"] == "deploy_to_prod"
    tool_result = [m for m in stub.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_result and "deployed billing-api 2.3.1" in tool_result[0]["content"]
    last_prompt = json.dumps(stub.requests[2]["messages"])
    assert DEPLOY_TASK in last_prompt and "deployed billing-api 2.3.1" in last_prompt  # the whole history...
    assert "respect the freeze" in last_prompt and "security_reviewer" in last_prompt  # ...and the reviewer


def test_openai_500_then_success_is_retried(stub: OpenAIStub) -> None:
    stub.enqueue(ErrorReply(500), "recovered")
    assert asyncio.run(openai_client(stub).create([task("hi")])).content == "recovered"
    assert len(stub.requests) == 2


@pytest.mark.filterwarnings("ignore:No text content")  # autogen-ext's only reaction to a non-SSE body
def test_openai_stream_failing_before_first_chunk_is_retried(stub: OpenAIStub) -> None:
    stub.enqueue(ErrorReply(503), GarbageReply(), "second time lucky")

    async def collect() -> list[str | CreateResult]:
        return [i async for i in openai_client(stub).create_stream([task("hi")])]

    assert asyncio.run(collect())[-1].content == "second time lucky"  # type: ignore[union-attr]
    assert len(stub.requests) == 3


def test_openai_stream_breaking_after_first_chunk_is_not_retried(stub: OpenAIStub) -> None:
    stub.enqueue(BrokenStreamReply("one two three four", good_chunks=2))
    got: list[Any] = []

    async def collect() -> None:
        async for item in openai_client(stub).create_stream([task("hi")]):
            got.append(item)

    with pytest.raises(ModelCallFailed, match="broke off midway"):
        asyncio.run(collect())
    assert got == ["one ", "two "] and len(stub.requests) == 1


@pytest.mark.parametrize(
    ("replies", "message"),
    [
        ([ErrorReply(500)] * 3, r"model endpoint http://127\.0\.0\.1:\d+/v1 answered HTTP 500 three times"),
        ([HangReply(5)] * 3, r"model call timed out after 0\.3 s \(3 attempts\)"),
        ([GarbageReply()] * 3, r"model returned a malformed reply: the body is not valid JSON .*\(3 attempts\)"),
        ([GarbageReply('{"id": "x", "object": "chat.completion"}')] * 3, r"malformed reply: .*no usable choices"),
    ],
    ids=["http-500", "timeout", "garbage", "no-choices"],
)
@pytest.mark.filterwarnings("ignore:Resolved model mismatch")  # autogen-ext warns about the model-less body
def test_openai_permanent_failures_raise_model_call_failed(stub: OpenAIStub, replies: list[Any], message: str):
    stub.enqueue(*replies)
    with pytest.raises(ModelCallFailed, match=message) as failure:
        asyncio.run(openai_client(stub, timeout_s=0.3).create([task("hi")]))
    assert len(stub.requests) == 3
    assert failure.value.__cause__ is not None


def test_openai_client_errors_are_not_retried(stub: OpenAIStub) -> None:
    stub.enqueue(ErrorReply(401, "invalid api key"))
    with pytest.raises(ModelCallFailed, match="rejected the request with HTTP 401: invalid api key"):
        asyncio.run(openai_client(stub).create([task("hi")]))
    assert len(stub.requests) == 1


def test_openai_unreachable_endpoint_is_explained() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    spec = ModelSpec(provider="openai", model="m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=2,
                     retry_base_delay_s=0.01)
    expected = rf"could not connect to model endpoint http://127\.0\.0\.1:{port}/v1 \(2 attempts\)"
    with pytest.raises(ModelCallFailed, match=expected):
        asyncio.run(build_model_client(spec, "coder").create([task("hi")]))


def test_scripted_spec_builds_the_offline_model() -> None:
    client = build_model_client(ModelSpec(delay_ms=5), "planner")
    assert isinstance(client, ScriptedChatCompletionClient) and client.delay_ms == 5
    assert client.model_info["function_calling"] is True and client.model_info["vision"] is False


def test_openai_cancellation_is_not_retried(stub: OpenAIStub) -> None:
    stub.enqueue(HangReply(30))

    async def cancel_once_sent() -> float:
        # Cancel once the request is at the endpoint (not after a fixed delay, which a busy machine
        # may not have reached), then time how long the call takes to give up.
        token = CancellationToken()
        call = asyncio.ensure_future(openai_client(stub, timeout_s=60.0).create([task("hi")], cancellation_token=token))
        deadline = time.perf_counter() + 20
        while not stub.requests and time.perf_counter() < deadline:
            await asyncio.sleep(0.01)
        started = time.perf_counter()
        token.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        return time.perf_counter() - started

    # Far below the 30 s the endpoint hangs and the 60 s timeout: the cancellation cut the call short.
    assert asyncio.run(cancel_once_sent()) < 10.0
    assert len(stub.requests) == 1
