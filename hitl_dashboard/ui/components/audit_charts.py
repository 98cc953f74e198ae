"""Chain status and the managers' charts (recharts, bundled: no network needed)."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.states.audit_insights import WINDOWS
from hitl_dashboard.ui.states.audit_insights import AuditInsightsState as Insights

ACTION_FILLS = {"approve": "green", "revise": "amber", "abort": "red", "skip": "gray"}
BREACH_FILLS = {"escalated": "orange", "expired": "red"}
CHART_HEIGHT = 150


def chain_badge() -> rx.Component:
    """The last verification's answer (remembered; loading the page verifies nothing) and "Verify now"."""
    return rx.hstack(
        rx.badge(
            rx.icon(rx.match(Insights.chain, ("ok", "shield-check"), ("checking", "loader"),
                             ("unverified", "shield-question"), "shield-alert"), size=14),
            Insights.chain_text,
            color_scheme=rx.match(Insights.chain, ("ok", "green"), ("checking", "gray"), ("unverified", "gray"),
                                  "red"),
            variant=rx.cond(Insights.chain == "broken", "solid", "soft"),
            size="2", id="chain-status", data_state=Insights.chain, style={"white_space": "normal"},
        ),
        rx.button(rx.icon("refresh-cw", size=12), "Verify now", size="1", variant="soft",
                  loading=Insights.verifying, on_click=Insights.verify, id="verify-chain",
                  title="Check the events written since the last verification"),
        # On a phone the badge's text (the events checked) leaves no room beside it: the button wraps.
        align="center", spacing="2", wrap="wrap",
    )


def anchor_badge() -> rx.Component:
    """The chain compared with the newest head published outside the database (hidden without a file sink)."""
    return rx.cond(
        Insights.anchor != "off",
        rx.badge(
            rx.icon(rx.match(Insights.anchor, ("ok", "anchor"), ("checking", "loader"), ("none", "anchor"),
                             "shield-alert"), size=14),
            Insights.anchor_text,
            color_scheme=rx.match(Insights.anchor, ("ok", "green"), ("checking", "gray"), ("none", "gray"),
                                  ("unverified", "gray"), "red"),
            variant=rx.cond(Insights.anchor == "broken", "solid", "soft"),
            size="2", id="anchor-status", data_state=Insights.anchor,
            # The problem text can be long (it names the cut); let it wrap instead of widening the header.
            style={"white_space": "normal"},
        ),
    )


def _axes(x_key: str, decimals: bool = False) -> list[rx.Component]:
    tick = {"fontSize": 11}
    return [
        rx.recharts.cartesian_grid(stroke_dasharray="3 3", vertical=False, stroke=rx.color("gray", 5)),
        rx.recharts.x_axis(data_key=x_key, tick=tick, stroke=rx.color("gray", 8)),
        rx.recharts.y_axis(tick=tick, width=44, allow_decimals=decimals, stroke=rx.color("gray", 8)),
        rx.recharts.graphing_tooltip(
            content_style={"backgroundColor": rx.color("gray", 2), "border": f"1px solid {rx.color('gray', 6)}",
                           "fontSize": "12px"},
            cursor={"fill": rx.color("gray", 4)},
        ),
    ]


def _stacked(data, fills: dict[str, str]) -> rx.Component:
    return rx.recharts.bar_chart(
        *[rx.recharts.bar(data_key=key, stack_id="s", fill=rx.color(color, 9), name=key, is_animation_active=False)
          for key, color in fills.items()],
        *_axes("day"),
        rx.recharts.legend(icon_size=9),
        data=data, height=CHART_HEIGHT, width="100%", bar_category_gap="15%",
    )


def chart_card(title: str, subtitle: str | rx.Var[str], chart: rx.Component, id_: str) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.vstack(rx.text(title, weight="bold", size="2"), rx.text(subtitle, size="1", color_scheme="gray"),
                      spacing="0"),
            chart,
            spacing="2", width="100%",
        ),
        size="1", width="100%", id=id_, class_name="chart-card",
        # Recharts sizes its legend text from the surrounding font.
        style={"& .recharts-legend-wrapper": {"fontSize": "11px"}},
    )


def charts() -> rx.Component:
    return rx.grid(
        chart_card("Decisions per day", "by action, UTC days", _stacked(Insights.decisions, ACTION_FILLS),
                   "chart-decisions"),
        chart_card(
            "Median time to decision", Insights.median_unit + ", per role",
            rx.recharts.bar_chart(
                rx.recharts.bar(
                    rx.recharts.label_list(data_key="median", position="top", font_size=11),
                    data_key="median", fill=rx.color("indigo", 9), name="median " + Insights.median_unit,
                    is_animation_active=False,
                ),
                *_axes("reviewer", decimals=True),
                data=Insights.medians, height=CHART_HEIGHT, width="100%", layout="horizontal",
            ),
            "chart-medians",
        ),
        chart_card("SLA breaches per day", "review requests escalated or expired",
                   _stacked(Insights.breaches, BREACH_FILLS), "chart-breaches"),
        chart_card(
            "Tokens per day", "prompt + completion, all agents",
            rx.recharts.area_chart(
                rx.recharts.area(data_key="tokens", stroke=rx.color("cyan", 9), fill=rx.color("cyan", 5),
                                 type_="monotone", is_animation_active=False),
                *_axes("day"),
                data=Insights.tokens, height=CHART_HEIGHT, width="100%",
            ),
            "chart-tokens",
        ),
        columns=rx.breakpoints(initial="1", sm="2", md="4"), spacing="3", width="100%",  # 1 on a phone
    )


def window_picker() -> rx.Component:
    return rx.segmented_control.root(
        *[rx.segmented_control.item(f"{days} days", value=days) for days in WINDOWS],
        value=Insights.window, on_change=Insights.set_window, size="1", id="chart-window",
    )
