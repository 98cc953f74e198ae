"""Small status badges shared by the pages."""

from __future__ import annotations

import reflex as rx

STATUS_COLORS = {
    "running": "blue",
    "awaiting_review": "amber",
    "approved": "green",
    "aborted": "gray",
    "failed": "red",
}
URGENCY_COLORS = {"ok": "gray", "soon": "amber", "overdue": "red"}
KIND_LABELS = {"signoff": "sign-off", "gate": "gate", "tool_call": "tool call"}


def status_badge(status: rx.Var[str]) -> rx.Component:
    return rx.badge(status.replace("_", " "), color_scheme=rx.match(status, *STATUS_COLORS.items(), "gray"),
                    variant="soft")


def due_badge(due: rx.Var[str], urgency: rx.Var[str]) -> rx.Component:
    return rx.badge(rx.icon("clock", size=12), due, color_scheme=rx.match(urgency, *URGENCY_COLORS.items(), "gray"),
                    variant=rx.cond(urgency == "ok", "soft", "solid"), class_name="due-" + urgency)


def kind_badge(kind: rx.Var[str]) -> rx.Component:
    return rx.badge(rx.match(kind, *KIND_LABELS.items(), kind), variant="outline",
                    color_scheme=rx.cond(kind == "tool_call", "orange", "indigo"))
