"""Text the scripted model writes for planner, copywriter and operator (pure functions, no autogen).

Deterministic: the same conversation always gives the same text (crc32, not the salted ``hash``).
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any, Literal

from hitl_dashboard.domain.text_cuts import cut_visibly

TaskType = Literal["code", "copy", "ops"]
_TASK_TYPES: dict[str, TaskType] = {"code": "code", "copy": "copy", "ops": "ops"}

_OPS_WORDS = r"\b(deploy\w*|release\w*|roll ?out\w*|rollback|ship to prod\w*)\b"
_COPY_WORDS = r"\b(copy\w*|headline\w*|tagline\w*|e-?mail\w*|landing|announcement\w*|slogan\w*|newsletter\w*)\b"


def guess_task_type(task: str) -> TaskType:
    """ops for deploy/release words, copy for marketing words; the more frequent wins, ties go to ops."""
    ops = len(re.findall(_OPS_WORDS, task, re.I))
    copy = len(re.findall(_COPY_WORDS, task, re.I))
    if ops and ops >= copy:
        return "ops"
    return "copy" if copy else "code"


def confidence_line(seed: str, revision: int = 1) -> str:
    """0.70-0.94 from the text, a little higher for each reviewed revision, never above 0.97."""
    value = 0.70 + (zlib.crc32(seed.encode()) % 25) / 100 + 0.03 * (revision - 1)
    return f"CONFIDENCE: {min(value, 0.97):.2f}"


def addressed_to(text: str, role: str) -> bool:
    """A message with @mentions is for the mentioned agents only; one without is for everybody."""
    mentions = {m.lower() for m in re.findall(r"@(\w+)", text)}
    return not mentions or role.lower() in mentions


def topic_of(task: str) -> str:
    """What the task is about: 'Pulse, our analytics dashboard' from 'Write an email announcing Pulse, our...'."""
    first = task.strip().split("\n", 1)[0].rstrip(".!? ")
    match = re.search(r"\b(?:for|about|announcing|introducing|launching|of)\s+(.+)", first, re.I)
    topic = match.group(1) if match else _without_leading_verb(first)
    topic = re.sub(r"^(the|our|a|an|new)\s+", "", topic.strip(), flags=re.I)
    return cut_visibly(topic, 80) or "the product"


def _without_leading_verb(text: str) -> str:
    verbs = r"^(please\s+)?(add|write|draft|build|create|implement|make)\s+"
    return re.sub(verbs, "", text.strip().split("\n")[0], flags=re.I)


# -- planner ------------------------------------------------------------------------------------------
_STEPS: dict[TaskType, list[str]] = {
    "code": [
        "Pin down the expected behaviour of {topic}, including failure and edge cases.",
        "Implement it as a small module with one clear public function.",
        "Cover success, failure and edge cases with unit tests.",
        "Security review: input handling, timeouts, secrets and logging of sensitive data.",
        "Product review, then final sign-off before merge.",
    ],
    "copy": [
        "Identify the audience and the single key message for {topic}.",
        "Draft a headline, a short body and one call to action.",
        "Check tone and claims against the brand and legal guidelines.",
        "Product review of the copy, then final sign-off before publishing.",
    ],
    "ops": [
        "Confirm the build for {topic} passed CI and was verified on staging.",
        "Request human approval for deploy_to_prod with the exact service, version and environment.",
        "Deploy to production and watch error rate and latency for 15 minutes.",
        "Roll back immediately if error rate or latency regress; report the outcome.",
    ],
}


def plan(task: str, instructions: list[str], given: str | None = None) -> str:
    """given: the task type the team was started with (its TASK TYPE line then says so); None: guessed."""
    kind = _TASK_TYPES.get(given or "") or guess_task_type(task)
    if kind == "ops":
        args = deploy_arguments(task)
        topic = f"{args['service']} {args['version']}"
    elif kind == "code":  # "Add a TTL cache for user profiles" -> "a TTL cache for user profiles"
        topic = _without_leading_verb(task)
    else:
        topic = topic_of(task)
    steps = [s.format(topic=topic.rstrip(".")) for s in _STEPS[kind]]
    steps += [f"Address review feedback: {i}" for i in instructions]
    numbered = "\n".join(f"{n}. {step}" for n, step in enumerate(steps, 1))
    confidence = confidence_line(task, 1 + len(instructions))
    return f"TASK TYPE: {kind}\nPlan for: {cut_visibly(task.strip(), 200)}\n{numbered}\n{confidence}"


# -- copywriter -----------------------------------------------------------------------------------------
_HEADLINES = ["Meet {topic}", "{topic}: less busywork, more results", "Say hello to {topic}"]


def write_copy(task: str) -> str:
    topic = topic_of(task)
    product = topic.split(",")[0].strip()  # "Pulse, our analytics dashboard" -> "Pulse"
    headline = _HEADLINES[zlib.crc32(task.encode()) % len(_HEADLINES)].format(topic=topic)
    body = (
        f"{product[0].upper() + product[1:]} takes the repetitive work off your plate so your team can focus on "
        f"what matters. It's quick to set up and works with the tools you already use. "
        f"Teams in our early access program saved hours every week."
    )
    return _render_copy(headline, body, "Get started today")


def _render_copy(headline: str, body: str, cta: str) -> str:
    return f"# {headline}\n\n{body}\n\n**{cta}**"


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def revise_copy(previous: str, instruction: str) -> tuple[str, list[str]]:
    """Apply tone/length/mention/remove instructions to the last copy; returns the copy and what changed."""
    headline_match = re.search(r"^# (.+)$", previous, re.M)
    headline = headline_match.group(1) if headline_match else previous.strip().split("\n")[0]
    cta_match = re.search(r"^\*\*(.+)\*\*$", previous, re.M)
    cta = cta_match.group(1) if cta_match else "Get started today"
    body_lines = [ln for ln in previous.split("\n") if ln and not ln.startswith(("# ", "**", "_Revised"))]
    body = " ".join(body_lines)
    lowered, done = instruction.lower(), []
    removals = r"\b(?:remove|drop|delete|don't mention|do not mention)\s+(?:the\s+)?([^,.;]+)"
    for target in re.findall(removals, lowered):
        words = target.strip()
        kept = [s for s in _sentences(body) if words not in s.lower()]
        headline = re.sub(rf"\s*\b{re.escape(words)}\b", "", headline, flags=re.I).strip(" :,-") or headline
        body = " ".join(kept)
        done.append(f"removed '{words}'")
    if re.search(r"short|concise|trim|brief", lowered):
        body, headline = _sentences(body)[0] if body else body, " ".join(headline.split()[:6])
        done.append("made it shorter")
    if re.search(r"formal|professional", lowered):
        for informal, formal in {"It's": "It is", "it's": "it is", "you're": "you are", "don't": "do not",
                                 "we're": "we are", "Get started today": "Request a demonstration"}.items():
            body, cta = body.replace(informal, formal), cta.replace(informal, formal)
        body, headline = body.replace("!", "."), headline.replace("!", "")
        done.append("made the tone formal")
    if re.search(r"friendl|casual|warm|playful", lowered):
        body, headline, cta = "Good news: " + body, headline.rstrip("!.") + "!", "Give it a spin"
        done.append("made the tone friendlier")
    for mention in re.findall(r"\b(?:mention|include|add)\s+(?:that\s+)?([^,.;]+)", instruction, re.I):
        body += f" Also included: {mention.strip()}."
        done.append(f"mentioned {mention.strip()}")
    new_headline = re.search(r"headline\s*(?:to|:)\s*[\"']?([^\"'\n]+)", instruction, re.I)
    if new_headline:
        headline = new_headline.group(1).strip()
        done.append("replaced the headline")
    text = _render_copy(headline, body, cta)
    if not done or text == previous:
        text += f"\n\n_Revised per review: {cut_visibly(' '.join(instruction.split()), 160)}_"
        done.append("noted the review")
    return text, done


# -- operator ------------------------------------------------------------------------------------------
_NOT_SERVICES = {"the", "a", "new", "our", "version", "release", "to", "production", "prod", "latest", "it"}


def deploy_arguments(task: str, previous: dict[str, Any] | None = None) -> dict[str, Any]:
    """service/version/environment named in ``task``, falling back to ``previous`` and then to defaults."""
    previous = previous or {}
    version = re.search(r"\bv?(\d+\.\d+(?:\.\d+)?)\b", task)
    service = re.search(r"\b([a-z][a-z0-9]*(?:-[a-z0-9]+)+)\b", task, re.I)  # hyphenated names: billing-api
    if service is None:
        words = re.findall(r"(?:deploy|release|roll ?out|ship)\s+((?:\w[\w-]*\s*){1,3})", task, re.I)
        candidates = [w for w in " ".join(words).lower().split() if w not in _NOT_SERVICES and not w[0].isdigit()]
        service_name = candidates[0] if candidates and not re.match(r"v\d", candidates[0]) else None
    else:
        service_name = service.group(1)
    if service_name:  # the tool's schema: lowercase letters, digits and dashes
        service_name = re.sub(r"[^a-z0-9-]+", "-", service_name.lower()).strip("-") or None
    if version:  # the tool's schema wants three parts: 2.4 -> 2.4.0
        version_text = ".".join((version.group(1).split(".") + ["0"])[:3])
    return {
        "service": service_name or previous.get("service", "web-app"),
        "version": version_text if version else previous.get("version", "1.0.0"),
        # Production unless the text asks for staging alone (a deploy that names neither is a production one).
        "environment": "staging" if re.search(r"\bstaging\b", task, re.I)
        and not re.search(r"\bproduction\b", task, re.I) else "production",
    }


def deployment_outcome(text: str) -> str | None:
    """denied / pending / failed / succeeded / revise from a tool result or reviewer message, else None."""
    lowered = text.lower()
    if re.match(r"\s*revise\b", lowered):
        return "revise"
    if re.search(r"\b(den(y|ied)|reject(ed)?|not approved|refused)\b", lowered):
        return "denied"
    if re.search(r"pending[_ ]approval|awaiting approval|waiting for (human )?approval|not executed", lowered):
        return "pending"
    if re.search(r"\b(error|failed|failure|exception|interrupted)\b|\bnot run\b", lowered):
        return "failed"
    if re.search(r"\b(approved?|executed|succeeded|success|deployed|ok)\b", lowered):
        return "succeeded"
    return None


def approved_arguments(text: str, fallback: dict[str, Any]) -> dict[str, Any]:
    """The (possibly edited) arguments quoted in an approval, else the ones the operator asked for."""
    for candidate in re.findall(r"\{[^{}]*\}", text):
        try:
            parsed = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(parsed, dict) and ("service" in parsed or "version" in parsed):
            return {**fallback, **parsed}
    return fallback


def deploy_report(outcome: str, args: dict[str, Any], detail: str, who: str) -> str:
    what = f"{args.get('service')} {args.get('version')} to {args.get('environment')}"
    detail = " ".join(detail.split())  # whole: the report is what a reviewer and the export read
    if outcome == "succeeded":
        detail = re.split(r"\bResult:\s*", detail)[-1]  # the tool's own words, not the whole approval line
        shown = ", ".join(f"{k}={v}" for k, v in args.items())
        return f"Deployment report: deploy_to_prod succeeded with the approved arguments ({shown}).\n" \
               f"Result: {detail}\nDONE"
    if outcome == "denied":
        reason = re.split(r"(?:reason|says)\s*:\s*", detail, maxsplit=1, flags=re.I)[-1]
        return f"Deployment report: the deployment of {what} was denied by {who}. Reason: {reason}\n" \
               "Nothing was deployed.\nDONE"
    if outcome == "failed":
        return f"Deployment report: deploy_to_prod for {what} failed: {detail}\nDONE"
    if outcome == "pending":
        return f"The deployment of {what} is waiting for human approval; nothing has been executed yet."
    return f"No decision about the deployment of {what} yet ({who} said: {detail}). Waiting for approval."


def generic_answer(role: str, last_text: str) -> str:
    gist = cut_visibly(" ".join(last_text.split()), 120) or "the task"
    speaker = role.replace("_", " ").capitalize()
    return f'{speaker} here. I read: "{gist}". Noted; nothing further from me on this.'
