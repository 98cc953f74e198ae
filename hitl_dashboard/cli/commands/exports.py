"""`export CONVERSATION_ID [--format markdown|json] [--output PATH]`: one conversation, whole."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from hitl_dashboard.cli.output import emit
from hitl_dashboard.cli.registry import command, leaf
from hitl_dashboard.services.conversations.transcript_export import export_conversation
from hitl_dashboard.services.conversations.transcript_markdown import to_markdown
from hitl_dashboard.settings import get_settings


def register(sub: Any) -> None:
    p = leaf(sub, "export", "one conversation (transcript, revisions, reviews, decisions, tool calls, audit events) "
             "as Markdown or JSON")
    p.add_argument("conversation_id", type=int)
    p.add_argument("--format", choices=["markdown", "json"], default="markdown")
    p.add_argument("--output", "-o", metavar="PATH", help="write to this file instead of standard output")


@command("export")
def _export(args) -> int:
    doc = export_conversation(None, args.conversation_id, public_url=get_settings().public_url)  # None: the operator
    body = to_markdown(doc) if args.format == "markdown" else json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    if args.output:
        Path(args.output).write_text(body, encoding="utf-8")
        emit(args, {"conversation_id": args.conversation_id, "format": args.format, "path": args.output},
             f"wrote conversation {args.conversation_id} ({args.format}) to {args.output}")
    else:
        sys.stdout.write(body)
    return 0
