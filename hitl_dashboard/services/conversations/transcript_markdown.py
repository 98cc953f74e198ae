"""A conversation export (transcript_export.py) as Markdown that is safe to render anywhere.

Everything that came from an agent, a model, a tool or a user (message text, code, reasons,
arguments) is in a fenced code block (domain/markdown_text.fenced) or escaped to literal text
(inline): a payload such as `<script>` or `[x](javascript:...)` reads as itself in any renderer,
with raw HTML on or off. Our own structure is headings, lists and links we build from numbers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from hitl_dashboard.domain.markdown_text import fenced, inline

_LANGUAGE_OF_KIND = {"tool_call": "json", "tool_result": "text", "decision": "text"}


def to_markdown(doc: dict[str, Any]) -> str:
    return "".join(_lines(doc))


def markdown_chunks(doc: dict[str, Any]) -> Iterator[str]:
    """The same Markdown, a piece at a time: with export_conversation(stream_messages=True) the
    transcript is read as it is written out (a download of any length in constant memory)."""
    return _lines(doc)


def _lines(doc: dict[str, Any]) -> Iterator[str]:
    c = doc["conversation"]
    yield f"# Conversation {c['id']}: {inline(c['title'])}\n\n"
    for label, value in (("Status", c["status"]), ("Status reason", c["status_reason"]), ("Task type", c["task_type"]),
                         ("Template", c["template"]), ("Started by", c["initiator"]), ("Created", c["created_at"]),
                         ("Updated", c["updated_at"])):
        if value:
            yield f"- {label}: {inline(value)}\n"
    yield f"- Tokens: {c['prompt_tokens']} prompt, {c['completion_tokens']} completion\n"
    if c["url"].startswith(("http://", "https://")):
        yield f"- Link: <{_url(c['url'])}>\n"
    yield "\n## Task\n\n" + fenced(c["task"], "text") + "\n"
    yield "## Transcript\n\n"
    for m in doc["messages"]:
        yield from _message(m)
    if doc["revisions"]:
        yield "## Code revisions\n\n"
        for r in doc["revisions"]:
            origin = f", from message {r['message_seq']}" if r["message_seq"] else ""
            yield (f"### {inline(r['key'])} r{r['number']}\n\n"
                   f"- Content hash: `{_hex(r['content_hash'])}`{inline(origin)}\n\n")
            yield fenced(r["content"], r["language"]) + "\n"
    yield from _reviews(doc["reviews"])
    yield from _decisions(doc["decisions"])
    yield from _tool_calls(doc["tool_calls"])
    if doc["audit_events"] is not None:
        yield from _audit(doc["audit_events"])


def _message(m: dict) -> Iterator[str]:
    tokens = m["prompt_tokens"] + m["completion_tokens"]
    yield f"### Message {m['seq']}: {inline(m['source'])} ({inline(m['kind'])})\n\n"
    yield f"<a id=\"{m['anchor']}\"></a>{inline(m['created_at'] or '')}" + (f", {tokens} tokens" if tokens else "")
    if m.get("model"):
        yield f", model {inline(m['model'])}"
    if m["url"].startswith(("http://", "https://")):
        yield f", [link]({_url(m['url'])})"
    yield "\n\n" + fenced(m["content"], _LANGUAGE_OF_KIND.get(m["kind"], "markdown")) + "\n"


def _reviews(reviews: list[dict]) -> Iterator[str]:
    if not reviews:
        return
    yield "## Review requests\n\n"
    for r in reviews:
        yield (f"- Review {r['id']}: {inline(r['kind'])} for {inline(r['required_role'])} on {inline(r['subject'])}, "
               f"{inline(r['status'])}" + (f", claimed by {inline(r['assignee'])}" if r["assignee"] else "")
               + f"; rule {inline(r['rule'])}: {inline(r['reason'])}\n")
    yield "\n"


def _decisions(decisions: list[dict]) -> Iterator[str]:
    if not decisions:
        return
    yield "## Decisions\n\n"
    for d in decisions:
        who = f"{inline(d['reviewer'] or '?')} as {inline(d['role'])}"
        yield f"### Decision {d['id']}: {inline(d['action'])} by {who} on review {d['review_id']}\n\n"
        yield f"- At: {inline(d['created_at'])}\n- Content hash: `{_hex(d['content_hash'])}`\n"
        if d["is_override"]:
            yield f"- Admin override: {inline(d['override_reason'] or '')}\n"
        if d["target_agent"]:
            yield f"- Aimed at: {inline(d['target_agent'])}\n"
        yield "\n"
        for label, text in (("Reason", d["reason"]), ("Instructions", d["instructions"])):
            if text:
                yield f"{label}:\n\n" + fenced(text, "text") + "\n"
        if d["edited_args"]:
            yield _json_block("Edited arguments", d["edited_args"])
        if d["line_comments"]:
            yield _json_block("Line comments", d["line_comments"])


def _tool_calls(calls: list[dict]) -> Iterator[str]:
    if not calls:
        return
    yield "## Tool calls\n\n"
    for t in calls:
        yield f"### Tool call {t['id']}: {inline(t['tool'])}, {inline(t['status'])}\n\n"
        yield _json_block("Arguments", t["arguments"])
        if t["approved_arguments"] is not None and t["approved_arguments"] != t["arguments"]:
            yield _json_block("Approved arguments", t["approved_arguments"])
        if t["result"] is not None:
            yield "Result:\n\n" + fenced(t["result"], "text") + "\n"


def _audit(events: list[dict]) -> Iterator[str]:
    yield "## Audit events\n\n"
    if not events:
        yield "None.\n"
    for e in events:
        role = f" ({inline(e['actor_role'])})" if e["actor_role"] else ""
        yield (f"- {e['seq']}: {inline(e['at'])} {inline(e['action'])} by {inline(e['actor'])}{role}, "
               f"hash `{_hex(e['hash'])}`\n")
    yield "\n"


def _json_block(label: str, value: object) -> str:
    return f"{label}:\n\n" + fenced(json.dumps(value, indent=2, sort_keys=True), "json") + "\n"


def _hex(value: str | None) -> str:
    return "".join(ch for ch in (value or "") if ch in "0123456789abcdef")


def _url(url: str) -> str:
    # Our own URL (PUBLIC_URL, validated as http(s), plus numbers); percent-encode what could end
    # the link early.
    return url.replace(" ", "%20").replace("<", "%3C").replace(">", "%3E").replace("(", "%28").replace(")", "%29")
