"""Small status badges shared by the pages."""

from __future__ import annotations

import reflex as rx
from reflex.vars import StringVar

STATUS_COLORS = {
    "running": "blue",
    "awaiting_review": "amber",
    "approved": "green",
    "aborted": "gray",
    "failed": "red",
}
URGENCY_COLORS = {"ok": "gray", "soon": "amber", "overdue": "red"}
KIND_LABELS = {"signoff": "sign-off", "gate": "gate", "tool_call": "tool call"}


def status_badge(status: StringVar) -> rx.Component:
    return rx.badge(status.replace("_", " "), color_scheme=rx.match(status, *STATUS_COLORS.items(), "gray"),
                    variant="soft")


def due_badge(due: rx.Var[str], urgency: StringVar, due_ms: rx.Var[int]) -> rx.Component:
    """The SLA countdown. assets/ticking.js counts it down in the browser between refreshes (text,
    colour and urgency class) from data-due-ms; the server's next refresh replaces it."""
    return rx.badge(rx.icon("clock", size=12), rx.el.span(due, class_name="tick-text"),
                    color_scheme=rx.match(urgency, *URGENCY_COLORS.items(), "gray"),
                    variant=rx.cond(urgency == "ok", "soft", "solid"), class_name="due-badge due-" + urgency,
                    custom_attrs={"data-due-ms": due_ms})


def age_text(age: rx.Var[str], since_ms: rx.Var[int]) -> rx.Component:
    """'12 min ago', kept current by assets/ticking.js (data-since-ms)."""
    return rx.text(age, size="1", color_scheme="gray", class_name="age-text", custom_attrs={"data-since-ms": since_ms})


def kind_badge(kind: rx.Var[str]) -> rx.Component:
    return rx.badge(rx.match(kind, *KIND_LABELS.items(), kind), variant="outline",
                    color_scheme=rx.cond(kind == "tool_call", "orange", "indigo"))
