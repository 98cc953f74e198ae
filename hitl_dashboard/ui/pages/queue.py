"""Review queue: one tab per review role the user holds, sorted by due time, live."""

from __future__ import annotations

import reflex as rx
from reflex.vars import StringVar

from hitl_dashboard.ui import routes
from hitl_dashboard.ui.components.badges import age_text, due_badge, kind_badge
from hitl_dashboard.ui.components.batch_bar import batch_bar
from hitl_dashboard.ui.components.findings import findings_flag_badge
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.components.queue_watch import count_badge, notifications_button
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.feeds import FeedError, QueueFeed
from hitl_dashboard.ui.states.queue import QueueState
from hitl_dashboard.ui.states.queue_batch import QueueBatch
from hitl_dashboard.ui.states.queue_summary import QueueSummary
from hitl_dashboard.ui.views.formatting import ROLE_LABELS
from hitl_dashboard.ui.views.queue_view import QueueRow


def role_tab(role: StringVar) -> rx.Component:
    return rx.button(
        rx.match(role, *ROLE_LABELS.items(), role),
        count_badge(role),
        on_click=[QueueBatch.clear, QueueFeed.open(role), QueueSummary.refresh],
        variant=rx.cond(QueueFeed.role == role, "solid", "soft"),
        size="2",
        id="tab-" + role,
    )


def matches(row: RowVar[QueueRow]) -> rx.Var[bool]:
    # The tool's name too (a tool call's subject): typing it shows all of that tool's calls, which
    # the header's checkbox then selects at once.
    needle = QueueState.search.lower()
    return ((needle == "") | row.title.lower().contains(needle) | row.reason.lower().contains(needle)
            | row.subject.lower().contains(needle))


def cell(label: str, *children: rx.Component, **props) -> rx.Component:
    # data-label: the column name a card shows beside the value below 768 px (assets/app.css).
    return rx.table.cell(*children, data_label=label, **props)


def queue_row(row: RowVar[QueueRow]) -> rx.Component:
    """A table row from 768 px, a card below it (CSS only: one element per request, so the
    keyboard selection and the live updates work the same at every width)."""
    return rx.cond(
        matches(row),
        rx.table.row(
            rx.table.cell(
                # on_click, not on_change: the server decides what is selected (the box shows it).
                rx.checkbox(checked=QueueBatch.selected.contains(row.review_id),
                            on_click=QueueBatch.toggle(row.review_id), class_name="batch-check",
                            aria_label="Select " + row.title),
                class_name="batch-cell", data_label="Select",
            ),
            rx.table.cell(
                rx.vstack(
                    rx.hstack(
                        rx.link(row.title, href=routes.CONVERSATIONS + "/" + row.conversation_id.to_string(),
                                weight="medium", class_name="queue-title"),
                        rx.cond(row.external, rx.badge("external", color_scheme="iris", variant="soft",
                                                       class_name="external-badge")),
                        align="center", spacing="2", wrap="wrap",
                    ),
                    rx.text(row.reason, size="1", color_scheme="gray", class_name="queue-reason"),
                    spacing="0",
                ),
            ),
            cell("Type", rx.badge(row.task_type, variant="outline")),
            cell("Under review", rx.hstack(kind_badge(row.kind), rx.text(row.subject, size="1"), align="center",
                                           wrap="wrap")),
            cell("Rule", rx.code(row.rule, size="1")),
            cell("Risk", rx.hstack(findings_flag_badge(row.findings, row.not_analysed),
                                   rx.foreach(row.risk_flags, lambda f: rx.badge(f, color_scheme="red")),
                                   wrap="wrap", spacing="1")),
            cell("Tokens", rx.text(row.tokens, size="1")),
            cell("Age", age_text(row.age, row.created_ms), white_space="nowrap"),
            cell("SLA", due_badge(row.due, row.urgency, row.due_ms), white_space="nowrap"),
            cell(
                "Assignee",
                rx.cond(
                    row.assignee == "",
                    rx.button("Claim", size="1", on_click=QueueState.claim(row.review_id),
                              class_name="claim-button"),
                    rx.hstack(
                        rx.badge(rx.icon("user", size=12), row.assignee, variant="soft", class_name="assignee"),
                        rx.cond(row.assignee == AppState.username,
                                rx.button("Release", size="1", variant="ghost",
                                          on_click=QueueState.release(row.review_id), class_name="release-button")),
                        align="center", spacing="1",
                    ),
                ),
            ),
            class_name="queue-row",
            data_review_id=row.review_id,
        ),
    )


def queue_table() -> rx.Component:
    return rx.table.root(
        rx.table.header(rx.table.row(
            rx.table.column_header_cell(rx.checkbox(
                checked=(QueueBatch.count > 0) & (QueueBatch.count >= QueueFeed.rows.length()),
                on_click=QueueBatch.toggle_shown, id="batch-select-shown", aria_label="Select every review shown")),
            *[rx.table.column_header_cell(h) for h in (
            "Conversation", "Type", "Under review", "Rule", "Risk", "Tokens", "Age", "SLA", "Assignee")])),
        rx.table.body(rx.foreach(QueueFeed.rows, queue_row)),
        variant="surface", size="1", width="100%", id="queue-table", class_name="phone-cards",
    )


def empty_state() -> rx.Component:
    return rx.callout(
        rx.cond(QueueFeed.loaded, "Nothing waits for this role right now. New requests appear here by themselves.",
                "Loading the queue..."),
        icon="inbox", color_scheme="gray", id="queue-empty",
    )


def queue_page() -> rx.Component:
    return page_layout(
        rx.hstack(
            rx.heading("Review queue", size="6", as_="h1"),
            rx.spacer(),
            # aria-label: a placeholder is no name (it goes away as one types); no room for a visible label.
            rx.input(placeholder="Filter by title, reason or tool", value=QueueState.search,
                     on_change=QueueState.set_search, width=rx.breakpoints(initial="100%", sm="22em"),
                     id="queue-search", aria_label="Filter the queue by title, reason or tool"),
            notifications_button(),
            # The standing rules that decide some of this queue's tool calls (issue 42): from here, as the
            # header has no room for one more link.
            rx.link(rx.hstack(rx.icon("list-checks", size=15), rx.text("Standing rules", size="2"), align="center",
                              spacing="1"), href=routes.RULES, id="queue-rules-link", underline="hover"),
            align="center", width="100%", wrap="wrap",
        ),
        rx.hstack(rx.foreach(AppState.review_roles, role_tab), spacing="2", wrap="wrap", id="role-tabs"),
        rx.cond(FeedError.queue != "", rx.callout(FeedError.queue, icon="triangle-alert", color_scheme="red")),
        rx.cond((QueueFeed.rows.length() > 0) | (QueueBatch.summary != "") | (QueueBatch.error != ""), batch_bar()),
        rx.cond(QueueFeed.rows.length() > 0, queue_table(), empty_state()),
        size="4",
    )
