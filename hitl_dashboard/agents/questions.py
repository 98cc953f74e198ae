"""A reviewer's question to the agent that produced the work, answered in one call beside the team
by that agent's own model client (agent_client: the one its turns use, from the team version the
conversation is pinned to), with its own system prompt and the conversation so far. The team's
saved state is not touched, nothing resumes, and the answer is text (it never becomes a code
revision; code changes go through REVISE)."""

from __future__ import annotations

from dataclasses import dataclass, field

from autogen_core.models import AssistantMessage, LLMMessage, SystemMessage, UserMessage

from hitl_dashboard.agents.model_clients import ModelSpec
from hitl_dashboard.agents.team_run import agent_client
from hitl_dashboard.teams.model import TeamDefinition

QUESTION_MARK = "QUESTION FROM REVIEWER"
GUIDANCE = ("A human reviewer asks about your work, beside the review. Answer briefly and plainly in your own "
            "voice; do not write new code (code changes come as a revision).")
# Bounds on what one question sends, newest kept: a long conversation must not blow the model's
# context. Every cut is marked in the prompt, so the model knows something is missing.
MAX_FILES_CHARS = 20_000
MAX_MESSAGE_CHARS = 4_000
MAX_TRANSCRIPT_CHARS = 24_000


@dataclass(frozen=True)
class QuestionContext:
    agent: str
    task: str
    files: list[tuple[str, str]]  # (key, content) under review
    question: str
    reviewer: str
    key: str | None = None
    line: int | None = None
    transcript: list[tuple[str, str]] = field(default_factory=list)  # (source, text), oldest first


@dataclass(frozen=True)
class Answer:
    text: str
    prompt_tokens: int
    completion_tokens: int
    model: str  # the label of the client that wrote it, as on the agent's turns


def cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]}... [{len(text) - limit:,} more characters]"


def question_prompt(context: QuestionContext) -> str:
    files = cut("\n\n".join(f"# {key}\n{content}" for key, content in context.files), MAX_FILES_CHARS)
    about = f" about {context.key} line {context.line}" if context.key and context.line else ""
    return (f"Task: {context.task}\n\nYour work under review:\n{files}\n\n"
            f"{QUESTION_MARK} {context.reviewer}{about}: {context.question}")


def transcript_messages(context: QuestionContext) -> list[LLMMessage]:
    """The conversation so far, newest kept within MAX_TRANSCRIPT_CHARS: the agent's own messages as
    its own (assistant) turns, everyone else's as what it was told."""
    kept: list[LLMMessage] = []
    budget = MAX_TRANSCRIPT_CHARS
    for index, (source, text) in enumerate(reversed(context.transcript)):
        text = cut(text, MAX_MESSAGE_CHARS)
        if len(text) > budget:
            left = len(context.transcript) - index
            kept.append(UserMessage(content=f"[{left} earlier messages of the conversation are not shown]",
                                    source="system"))
            break
        budget -= len(text)
        kept.append(AssistantMessage(content=text, source=source) if source == context.agent
                    else UserMessage(content=text, source=source))
    return kept[::-1]


async def answer_question(team: TeamDefinition, spec: ModelSpec, context: QuestionContext) -> Answer:
    """team: the pinned version; spec: the agent's server-model spec with the conversation's routing.
    Model errors propagate to the caller (who shows them on the thread)."""
    client = agent_client(team, context.agent, spec)
    system = f"{team.agent(context.agent).system_prompt}\n\n{GUIDANCE}"
    try:
        result = await client.create([SystemMessage(content=system), *transcript_messages(context),
                                      UserMessage(content=question_prompt(context), source=context.reviewer)])
    finally:
        await client.close()
    text = result.content if isinstance(result.content, str) else str(result.content)
    return Answer(text, result.usage.prompt_tokens, result.usage.completion_tokens, client.label)
