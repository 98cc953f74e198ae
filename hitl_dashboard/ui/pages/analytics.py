"""Review analytics (managers and admins): time to decision, throughput, SLA breaches, revisions,
cost, overdue now; filters by period, team and role; each figure lists its conversations."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.domain.enums import QUEUE_ROLES
from hitl_dashboard.services.analytics.review_analytics import PERIODS
from hitl_dashboard.services.conversations import start_options
from hitl_dashboard.ui.components.access import guarded
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.analytics import ALL
from hitl_dashboard.ui.states.analytics import AnalyticsState as A
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.analytics_view import FigureRow, FigureTable
from hitl_dashboard.ui.views.formatting import role_label

DENIED = "You need the manager or admin role to read review analytics."


def _select(name: str, value, options: list[tuple[str, str]], id_: str) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(width="11em", id=id_, aria_label=name.capitalize()),
        rx.select.content(*[rx.select.item(label, value=v) for v, label in options]),
        value=value, on_change=lambda v: A.set_filter(name, v), size="2",
    )


def filters() -> rx.Component:
    return rx.hstack(
        _select("period", A.period, [(str(p), f"Last {p} day" + ("s" if p > 1 else "")) for p in PERIODS],
                "analytics-period"),
        _select("team", A.team, [(ALL, "Every team"), *[(t, t) for t in sorted(start_options.file_template_names())]],
                "analytics-team"),
        _select("role", A.role, [(ALL, "Every role"), *[(r, role_label(r)) for r in QUEUE_ROLES]], "analytics-role"),
        rx.cond(A.loading, rx.spinner(size="2")),
        spacing="3", align="center", wrap="wrap",
    )


def figure_row(table: RowVar[FigureTable], row: RowVar[FigureRow]) -> rx.Component:
    return rx.table.row(
        rx.foreach(row.cells, lambda cell: rx.table.cell(cell)),
        rx.table.cell(rx.button(row.conversations, size="1", variant="ghost", on_click=A.drill(row.key),
                                id="figure-" + row.key.replace(":", "-"), class_name="figure-link")),
        class_name="figure-row", data_key=row.key,
    )


def figure_table(table: RowVar[FigureTable]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading(table.title, size="3", as_="h2"), rx.spacer(),
                rx.button(rx.icon("download", size=14), "CSV", size="1", variant="soft",
                          on_click=A.download_csv(table.name), id="csv-" + table.name),
                align="center", width="100%",
            ),
            rx.cond(
                table.rows.length() > 0,
                rx.table.root(
                    rx.table.header(rx.table.row(rx.foreach(table.columns, rx.table.column_header_cell),
                                                 rx.table.column_header_cell("Conversations"))),
                    rx.table.body(rx.foreach(table.rows, lambda row: figure_row(table, row))),
                    size="1", width="100%",
                ),
                rx.text("Nothing in this period.", size="2", color_scheme="gray"),
            ),
            spacing="2", width="100%",
        ),
        width="100%", min_width="0", id="table-" + table.name,
    )


def drill_panel() -> rx.Component:
    return rx.cond(
        A.drill_title != "",
        rx.card(
            rx.vstack(
                rx.heading("Conversations behind ", A.drill_title, size="3", as_="h2", id="drill-title"),
                rx.foreach(A.drill_rows, lambda r: rx.hstack(
                    rx.link("#", r[0], " ", r[1], href="/conversations/" + r[0], class_name="drill-conversation"),
                    rx.badge(r[2], variant="outline"), rx.badge(r[3], variant="soft"),
                    spacing="2", align="center",
                )),
                spacing="2", width="100%",
            ),
            width="100%", id="drill",
        ),
    )


def analytics_page() -> rx.Component:
    return page_layout(
        rx.hstack(rx.heading("Review analytics", size="6", as_="h1"), rx.spacer(),
                  rx.cond(AppState.can_read_audit, filters()), align="center", width="100%", wrap="wrap"),
        guarded(
            AppState.can_read_audit, DENIED,
            rx.vstack(
                rx.cond(A.error != "", rx.callout(A.error, icon="triangle-alert", color_scheme="red", size="1")),
                rx.text("Since ", A.since, size="1", color_scheme="gray"),
                drill_panel(),
                # Two across only where each has room for its columns and its CSV button.
                rx.grid(rx.foreach(A.figures, figure_table), spacing="3", width="100%",
                        grid_template_columns=rx.breakpoints(initial="minmax(0, 1fr)",
                                                             md="repeat(2, minmax(0, 1fr))")),
                spacing="3", width="100%",
            ),
        ),
        size="wide",
    )
