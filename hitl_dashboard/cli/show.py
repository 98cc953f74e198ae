"""Text rendering of a conversation for `show`."""

from __future__ import annotations

from hitl_dashboard.services.conversations.conversation_page import ConversationPage


def render_page(page: ConversationPage) -> tuple[dict, str]:
    c = page.conversation
    open_requests = [review.request for review in page.open_reviews]
    flags = page.review_findings or {}
    data = {
        "id": c.id, "title": c.title, "task_type": c.task_type, "template": c.template, "status": c.status,
        "status_reason": c.status_reason, "tokens": {"prompt": c.prompt_tokens, "completion": c.completion_tokens},
        "checkpoint_version": c.checkpoint_version, "team_version": page.team_version,
        "parent": {"id": c.parent_id, "turn": c.parent_turn, "origin": c.origin} if c.parent_id else None,
        "signoff": [{"role": s.role, "approved": s.approved} for s in page.progress],
        "open_reviews": [
            {"review_id": r.id, "kind": r.kind, "role": r.required_role, "status": r.status, "rule": r.rule,
             "reason": r.reason, "subject": r.subject_label, "version": r.version, "due_at": r.due_at.isoformat(),
             "findings": flags[r.id].as_dict() if r.id in flags else None}
            for r in open_requests
        ],
        "revisions": [{"key": r.key, "number": r.number, "hash": r.content_hash, "analysis": found.analysis_dict()}
                      for r, found in zip(page.revisions, page.findings, strict=True)],
        # model: the model that wrote it, as the page shows it; None for people and tool results.
        "messages": [{"seq": m.seq, "source": m.source, "kind": m.kind, "model": m.model, "content": m.content}
                     for m in page.messages],
    }
    team = f"team {c.template}" + (f" v{page.team_version}" if page.team_version else "")
    lines = [f"#{c.id} {c.title}", f"type {c.task_type}  {team}  status {c.status}"
             + (f" ({c.status_reason})" if c.status_reason else ""),
             *([f"{c.origin} of #{c.parent_id} after its turn {c.parent_turn}"] if c.parent_id else []),
             "sign-off: " + ", ".join(f"{s.role} {'approved' if s.approved else 'pending'}" for s in page.progress)]
    for r in open_requests:
        lines.append(f"open review {r.id}: {r.kind} for {r.required_role} [{r.status}] {r.reason} "
                     f"on {r.subject_label}" + (f" ({flags[r.id].flag})" if r.id in flags and flags[r.id].flag else ""))
    lines.append("")
    for m in page.messages:
        lines.append(f"--- {m.seq} {m.source} ({m.kind}" + (f", model {m.model})" if m.model else ")"))
        lines.append(m.content)
    return data, "\n".join(lines)
