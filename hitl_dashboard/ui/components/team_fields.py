"""The team editor's small parts (issue 30): a labelled field with its problem under it, text inputs
and selects bound to the editor's state. A problem shows where its form key says
(ui/views/team_problems.py)."""

from __future__ import annotations

from typing import Any

import reflex as rx

from hitl_dashboard.ui.states.admin_teams import AdminTeamsState as Teams
from hitl_dashboard.ui.views.team_form import NONE


def problem(key: str | rx.Var) -> rx.Component:
    # Teams.errors: a dict state var, an ObjectVar when read on the class; mypy sees a dict.
    return rx.cond(Teams.errors.contains(key),  # type: ignore[attr-defined]
                   rx.text(Teams.errors[key], size="1", color_scheme="red",  # type: ignore[index]
                           class_name="field-error", role="alert", data_key=key))


def field(label: Any, control: rx.Component, key: str | rx.Var, hint: str = "") -> rx.Component:
    return rx.vstack(
        rx.el.label(rx.text(label, size="1", weight="medium"), control, style={"width": "100%"}),
        rx.text(hint, size="1", color_scheme="gray") if hint else rx.fragment(),
        problem(key), spacing="1", width="100%",
    )


def text_input(value: rx.Var, on_change, id_: str | rx.Var, **props) -> rx.Component:
    return rx.input(value=value, on_change=on_change, size="2", width="100%", id=id_, **props)


def select(choices: dict[str, str] | rx.Var, value: rx.Var, on_change, id_: str | rx.Var, label: Any,
           none: str = "", pairs: bool = False) -> rx.Component:
    """choices: {value: label}, or a list Var of names, or (pairs) of [value, label].
    none: the label of "no value" (offered first; chosen, the state stores "")."""
    items = [rx.select.item(none, value=NONE)] if none else []
    if isinstance(choices, dict):
        items += [rx.select.item(text, value=key) for key, text in choices.items()]
    elif pairs:
        items.append(rx.foreach(choices, lambda pair: rx.select.item(pair[1], value=pair[0])))
    else:
        items.append(rx.foreach(choices, lambda name: rx.select.item(name, value=name)))
    shown = rx.cond(value == "", NONE, value) if none else value
    return rx.select.root(rx.select.trigger(width="100%", id=id_, aria_label=label), rx.select.content(*items),
                          value=shown, on_change=on_change, size="2")


def section_heading(title: str, add_label: str = "", on_add=None, id_: str = "") -> rx.Component:
    return rx.hstack(
        rx.heading(title, size="3", as_="h2"), rx.spacer(),
        rx.button(rx.icon("plus", size=14), add_label, on_click=on_add, size="1", variant="soft", id=id_)
        if add_label else rx.fragment(),
        align="center", width="100%",
    )


def remove_button(label: rx.Var | str, on_click, id_: str | rx.Var) -> rx.Component:
    return rx.icon_button(rx.icon("trash-2", size=14), on_click=on_click, size="1", variant="ghost",
                          color_scheme="red", aria_label=label, title=label, id=id_)
