"""Transcript export: one conversation as Markdown and JSON, safe to render whatever the agents wrote."""

from __future__ import annotations

import html
import json
import re

import cmarkgfm
import pytest
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt

from hitl_dashboard.db.models import CodeRevision, Conversation, Message
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.domain.markdown_text import fenced, inline
from hitl_dashboard.services.conversations.transcript_export import export_conversation
from hitl_dashboard.services.conversations.transcript_markdown import to_markdown
from tests.conftest import run_cli
from tests.support import flow

PAYLOADS = [
    "<script>alert('xss')</script>",
    "<img src=x onerror=alert(1)>",
    "[click me](javascript:alert(document.cookie))",
    "```\n</code></pre><script>alert(2)</script>\n```",
    "`````` six backticks then <iframe src=javascript:alert(3)>",
    "<a href=\"javascript:alert(4)\">x</a> &lt;already&gt; ~~~\n~~~~",
]
EVIL = "\n\n".join(PAYLOADS)


def _add_agent_output(conversation_id: int) -> int:
    """An agent message and a code revision full of payloads, as a compromised model could write them."""
    with UnitOfWork() as uow:
        c = uow.session.get(Conversation, conversation_id)
        message = Message(conversation_id=conversation_id, workspace_id=c.workspace_id, seq=c.next_seq,
                          source="coder", kind="text", content=EVIL, completion_tokens=7)
        c.next_seq += 1
        uow.session.add(message)
        uow.session.flush()
        uow.session.add(CodeRevision(conversation_id=conversation_id, message_id=message.id, key="<b>evil</b>.py",
                                     number=1, language="python`<script>", content="x = '''" + EVIL + "'''\n",
                                     content_hash="ab" * 32))
        uow.commit()
        return message.seq


def _conversation_with_revisions_and_payloads() -> tuple[int, int]:
    flow.make_people()
    cid = flow.start("Add retry <script>alert('task')</script> to the client",
                     title="Retry <img src=x onerror=alert(5)>")
    flow.work()
    flow.decide_as("alice", flow.only_open_review(cid).id, "revise", target_agent="coder",
                   instructions="add a timeout <script>alert('instructions')</script>")
    flow.work()
    return cid, _add_agent_output(cid)


def _text(value: str) -> str:
    """How a renderer writes text: markup characters as entities."""
    return html.escape(value, quote=False).replace('"', "&quot;")


def _rendered(markdown: str) -> str:
    # CommonMark with raw HTML allowed: the most permissive renderer a reader could use.
    return MarkdownIt("commonmark", {"html": True}).render(markdown)


def _github(markdown: str) -> str:
    """GitHub's renderer (cmark-gfm: tables, strikethrough, bare URLs made links), raw HTML allowed."""
    return cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)


@pytest.mark.parametrize("render", [_rendered, _github], ids=["commonmark", "github"])
def test_markdown_export_renders_every_payload_as_text(db_url, render):
    cid, evil_seq = _conversation_with_revisions_and_payloads()
    doc = export_conversation(None, cid, public_url="http://dash.example")
    assert len([r for r in doc["revisions"] if r["key"] == "app/retry.py"]) == 2  # code revisions r1, r2
    rendered = render(to_markdown(doc))

    assert not re.search(r"<(script|img|iframe)\b", rendered, re.I), rendered
    assert "javascript:" not in "".join(re.findall(r'href="([^"]*)"', rendered))
    assert rendered.count("<a href=") == len(doc["messages"]) + 1  # our own links only: each message, the page
    # Each payload comes out whole, as text, in a code block (backtick runs did not close the fence).
    for payload in PAYLOADS:
        assert _text(payload) in rendered, payload
    assert _text("<script>alert('instructions')</script>") in rendered
    # A stable link to each message: the anchor on the page and in the document.
    assert f'<a id="message-{evil_seq}"></a>' in rendered
    assert f'href="http://dash.example/conversations/{cid}#message-{evil_seq}"' in rendered
    assert "Retry &lt;img src=x onerror=alert(5)&gt;" in rendered


def _outside_code_blocks(markdown: str) -> list[str]:
    lines, fence = [], None
    for line in markdown.splitlines():
        opening = re.match(r"`{3,}", line)
        if fence is None and opening:
            fence = opening.group(0)
        elif fence is not None and line == fence:
            fence = None
        elif fence is None:
            lines.append(line)
    return lines


def test_titles_names_and_metadata_read_as_written(db_url):
    flow.make_people()
    cid = flow.start("Move plan_v2 to the a.b service", title="Ship plan_v2 to a.b (phase 2): 50% first")
    flow.work()
    flow.decide_as("alice", flow.only_open_review(cid).id, "revise", instructions="keep plan_v1 working")
    markdown = to_markdown(export_conversation(flow.actor("dave"), cid))  # a manager: the audit events too
    ours = _outside_code_blocks(markdown)
    assert ours[0] == f"# Conversation {cid}: Ship plan_v2 to a.b (phase 2): 50% first"
    assert "- Started by: frank" in ours and "- Task type: code" in ours
    assert any(re.fullmatch(r"- Created: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+\+00:00", line) for line in ours)
    assert any(line.startswith("### Decision ") and "revise by alice as security_reviewer" in line for line in ours)
    assert any(" decision.recorded by alice (security_reviewer)" in line for line in ours)
    assert not [line for line in ours if "\\" in line]  # not one backslash outside the code blocks


def test_a_title_cannot_break_the_documents_structure(db_url):
    flow.make_people()
    cid = flow.start("Add retry", title="Retry\n# Injected heading\n- injected item ##")
    flow.work()
    rendered = _github(to_markdown(export_conversation(None, cid)))
    title = f"Conversation {cid}: Retry # Injected heading - injected item ##"
    assert re.findall(r"<h1>(.*?)</h1>", rendered) == [title]
    assert re.findall(r"<h2>(.*?)</h2>", rendered)[:2] == ["Task", "Transcript"]


def test_json_export_holds_the_whole_conversation_and_audit_events_only_for_managers(db_url):
    cid, evil_seq = _conversation_with_revisions_and_payloads()
    doc = export_conversation(flow.actor("dave"), cid)  # a manager
    json.dumps(doc)  # JSON-ready as it is
    assert [m["seq"] for m in doc["messages"]] == list(range(1, evil_seq + 1))
    assert doc["messages"][-1]["content"] == EVIL and doc["messages"][-1]["anchor"] == f"message-{evil_seq}"
    assert [(d["action"], d["reviewer"], d["role"]) for d in doc["decisions"]] == [
        ("revise", "alice", "security_reviewer")]
    assert "alert('instructions')" in doc["decisions"][0]["instructions"]
    assert {r["status"] for r in doc["reviews"]} >= {"pending"}
    actions = [e["action"] for e in doc["audit_events"]]
    assert actions and all(e["conversation_id"] == cid for e in doc["audit_events"])
    assert "decision.recorded" in actions
    # A reviewer reads the conversation but not the audit trail.
    assert export_conversation(flow.actor("alice"), cid)["audit_events"] is None


def test_cli_export_writes_markdown_and_json(db_url, tmp_path):
    cid, _ = _conversation_with_revisions_and_payloads()
    markdown = run_cli("export", str(cid)).stdout
    assert markdown.startswith(f"# Conversation {cid}: ") and "## Code revisions" in markdown
    assert not re.search(r"<script\b", _rendered(markdown), re.I)
    out = tmp_path / "c.json"
    written = json.loads(run_cli("--json", "export", str(cid), "--format", "json", "--output", str(out)).stdout)
    assert written["path"] == str(out)
    assert json.loads(out.read_text())["conversation"]["id"] == cid
    missing = run_cli("export", "999999", check=False)
    assert missing.returncode == 3 and "999999" in missing.stderr


def test_fences_and_escapes_hold_against_their_own_delimiters():
    for text in ["```", "a ```` b", "~~~", "", "no newline", "`" * 40]:
        block = fenced(text, "py`x")
        fence = block.split("\n", 1)[0].rstrip("pyx")
        assert set(fence) == {"`"} and len(fence) > max((len(r) for r in re.findall("`+", text)), default=0)
        rendered = _rendered(block)
        assert rendered.startswith("<pre><code") and _text(text) in rendered
    assert _rendered(inline("# <b>x</b> *y* [a](b)\nz")) == "<p># &lt;b&gt;x&lt;/b&gt; *y* [a](b) z</p>\n"
