"""The analytics page's tables as display-ready rows, and each table as CSV."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from hitl_dashboard.services.analytics.review_analytics import Analytics
from hitl_dashboard.ui.views.formatting import role_label, span


@dataclass
class FigureRow:
    key: str = ""  # names the row for the list of its conversations: "<table>:<index>"
    cells: list[str] = field(default_factory=list)
    conversations: int = 0


@dataclass
class FigureTable:
    name: str = ""
    title: str = ""
    columns: list[str] = field(default_factory=list)
    rows: list[FigureRow] = field(default_factory=list)


def _pct(value: float) -> str:
    return f"{value * 100:.0f}%"


def tables(a: Analytics) -> tuple[list[FigureTable], dict[str, list[int]]]:
    """The tables, and the conversation ids behind each row (kept on the server)."""
    ids: dict[str, list[int]] = {}
    result = []

    def table(name: str, title: str, columns: list[str], rows: list[tuple[list[str], list[int]]]) -> None:
        figure_rows = []
        for index, (cells, behind) in enumerate(rows):
            key = f"{name}:{index}"
            ids[key] = behind
            figure_rows.append(FigureRow(key, cells, len(behind)))
        result.append(FigureTable(name, title, columns, figure_rows))

    table("roles", "Time to decision by role", ["Role", "Decisions", "Median", "p90"],
          [([role_label(w.role), str(w.decisions), span(w.median_s), span(w.p90_s)], w.conversations)
           for w in a.by_role])
    table("reviewers", "Time to decision by reviewer", ["Reviewer", "Role", "Decisions", "Median", "p90"],
          [([w.key, role_label(w.role), str(w.decisions), span(w.median_s), span(w.p90_s)], w.conversations)
           for w in a.by_reviewer])
    table("days", "Decisions per day", ["Day (UTC)", "Decisions"],
          [([c.key, str(c.count)], c.conversations) for c in a.per_day])
    table("rates", "SLA breaches and revisions", ["Role", "Requests", "SLA breaches", "Breach rate", "Decisions",
                                                   "Revise rate"],
          [([role_label(r.role), str(r.requests), str(r.breaches), _pct(r.breach_rate), str(r.decisions),
             _pct(r.revise_rate)], sorted(set(r.breached) | set(r.revised))) for r in a.rates])
    table("costs", "Rounds and tokens per conversation", ["Conversation", "Team", "Rounds", "Tokens"],
          [([f"#{c.id} {c.title}", c.team, str(c.rounds), f"{c.tokens:,}"], [c.id]) for c in a.conversations])
    table("teams", "Tokens per team", ["Team", "Conversations", "Tokens", "Tokens per conversation"],
          [([t.key, str(t.started), f"{t.count:,}", f"{t.count // t.started:,}" if t.started else "0"],
            t.conversations) for t in a.teams])
    table("overdue", "Overdue now", ["Role", "Overdue reviews"],
          [([role_label(c.key), str(c.count)], c.conversations) for c in a.overdue])
    return result, ids


def to_csv(table: FigureTable, ids: dict[str, list[int]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow([*table.columns, "Conversation ids"])
    for row in table.rows:
        # A cell that starts like a formula is quoted with ' so a spreadsheet shows it as text.
        writer.writerow([("'" + c) if c[:1] in ("=", "+", "-", "@") else c for c in row.cells]
                        + [" ".join(map(str, ids.get(row.key, [])))])
    return out.getvalue()
