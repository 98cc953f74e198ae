"""A reviewer's question to the agent that produced the work, answered by that agent's model in
one call beside the team: the team's saved state is not touched, nothing resumes, and the answer
is text (it never becomes a code revision; code changes go through REVISE)."""

from __future__ import annotations

from dataclasses import dataclass

from autogen_core.models import SystemMessage, UserMessage

from hitl_dashboard.agents.model_clients import ModelSpec, build_model_client

QUESTION_MARK = "QUESTION FROM REVIEWER"
MAX_CONTEXT_CHARS = 20_000


@dataclass(frozen=True)
class QuestionContext:
    agent: str
    task: str
    files: list[tuple[str, str]]  # (key, content) under review
    question: str
    reviewer: str
    key: str | None = None
    line: int | None = None


def question_prompt(context: QuestionContext) -> str:
    files = "\n\n".join(f"# {key}\n{content}" for key, content in context.files)[:MAX_CONTEXT_CHARS]
    about = f" about {context.key} line {context.line}" if context.key and context.line else ""
    return (f"Task: {context.task}\n\nYour work under review:\n{files}\n\n"
            f"{QUESTION_MARK} {context.reviewer}{about}: {context.question}")


async def answer_question(spec: ModelSpec, context: QuestionContext) -> tuple[str, int, int]:
    """(answer, prompt tokens, completion tokens). Model errors propagate to the caller."""
    client = build_model_client(spec, context.agent)
    try:
        result = await client.create([
            SystemMessage(content=f"You are the {context.agent}. A human reviewer asks about your work. Answer "
                                  "briefly and plainly; do not write new code."),
            UserMessage(content=question_prompt(context), source=context.reviewer),
        ])
    finally:
        await client.close()
    text = result.content if isinstance(result.content, str) else str(result.content)
    usage = result.usage
    return text, usage.prompt_tokens, usage.completion_tokens
