"""New conversation page: task, task type, team template, gate policy, the model of each agent."""

from __future__ import annotations

import reflex as rx
from reflex.vars import StringVar

from hitl_dashboard.services.conversations import start_options
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.states.new_conversation import NewConversationState as New

TASK_TYPE_LABELS = {"code": "Code", "copy": "Copy", "ops": "Ops", "auto": "Auto (the planner decides)"}
MODE_LABELS = {"after_agent": "After each turn of the chosen agents", "on_done": "When the team says it is done",
               "never": "Never (only keyword, regex, confidence and tool gates)"}


def error_for(name: str) -> rx.Component:
    # New.errors, New.providers, New.models: dict state vars, ObjectVars when read on the class; mypy sees dicts.
    return rx.cond(New.errors.contains(name),  # type: ignore[attr-defined]
                   rx.text(New.errors[name], size="1", color_scheme="red", role="alert", class_name="field-error",
                           id=f"error-{name}"))


def labelled(label: str, control: rx.Component, name: str, hint: str = "", for_id: str = "") -> rx.Component:
    """A field with its label: tied to the control (`for_id`), since a placeholder is no name; a group
    of checkboxes (no `for_id`) is named by it instead."""
    caption = rx.text(label, size="2", weight="medium", as_="span", id=f"label-{name}")
    return rx.vstack(
        rx.el.label(caption, html_for=for_id) if for_id else caption,
        control,
        rx.text(hint, size="1", color_scheme="gray") if hint else rx.fragment(),
        error_for(name),
        spacing="1", width="100%",
    )


def select(options: dict[str, str], value, on_change, id_: str) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(width="100%", id=id_, aria_label=id_.removeprefix("new-").replace("-", " ").capitalize()),
        rx.select.content(*[rx.select.item(label, value=key) for key, label in options.items()]),
        value=value, on_change=on_change, size="2",
    )


def text_input(name: str, **props) -> rx.Component:
    return rx.input(value=getattr(New, name), on_change=lambda v: New.set_text(name, v), size="2", width="100%",
                    id=f"new-{name.replace('_', '-')}", name=name, **props)


def task_section() -> rx.Component:
    return rx.card(rx.vstack(
        labelled("Task", rx.text_area(value=New.task, on_change=lambda v: New.set_text("task", v), rows="4",
                                      width="100%", id="new-task", name="task",
                                      placeholder="What should the agents do? e.g. Add input validation to the "
                                                  "user signup endpoint"), "task", for_id="new-task"),
        labelled("Title", text_input("title", placeholder="optional: the first line of the task"), "title",
                 for_id="new-title"),
        rx.grid(
            labelled("Task type", select(TASK_TYPE_LABELS, New.task_type, New.set_task_type, "new-task-type"),
                     "task_type", for_id="new-task-type"),
            # The teams' newest versions, read when the form opens (a team saved since shows up).
            labelled("Team template", rx.select.root(
                rx.select.trigger(width="100%", id="new-template", aria_label="Template"),
                rx.select.content(rx.foreach(New.template_options,
                                             lambda option: rx.select.item(option[1], value=option[0]))),
                value=New.template, on_change=New.set_template, size="2"), "template",
                     hint="Defaults to the task type; auto can do all three.", for_id="new-template"),
            labelled("When a review is overdue", select({"escalate": "Escalate to an admin", "abort": "Abort"},
                                                        New.on_overdue, lambda v: New.set_choice("on_overdue", v),
                                                        "new-on-overdue"), "on_overdue", for_id="new-on-overdue"),
            columns=rx.breakpoints(initial="1", sm="3"), spacing="3", width="100%",
        ),
        spacing="3",
    ), size="2", width="100%")


def checkbox_row(items, selected, on_toggle, prefix: str, labelled_by: str) -> rx.Component:
    return rx.hstack(
        rx.foreach(items, lambda item: rx.checkbox(item, checked=selected.contains(item),
                                                   on_change=lambda checked: on_toggle(item, checked),
                                                   size="2", id=f"{prefix}-" + item)),
        spacing="4", wrap="wrap", role="group", aria_labelledby=labelled_by,
    )


def policy_section() -> rx.Component:
    return rx.card(rx.vstack(
        rx.heading("Gate policy", size="3", as_="h2"),
        rx.text("When the agents stop and wait for a human.", size="1", color_scheme="gray"),
        labelled("Sign-off point", select(MODE_LABELS, New.mode, lambda v: New.set_choice("mode", v), "new-mode"),
                 "mode", for_id="new-mode"),
        rx.cond(New.mode == "after_agent",
                labelled("After turns of", checkbox_row(New.agents, New.gate_agents, New.toggle_gate_agent,
                                                        "gate-agent", "label-agents"), "agents")),
        rx.grid(
            labelled("Keywords", text_input("keywords", placeholder="DROP TABLE, rm -rf"), "keywords",
                     hint="Comma separated; any of them in a message opens a review.", for_id="new-keywords"),
            labelled("Regex", text_input("regex", placeholder="optional, e.g. password\\s*="), "regex",
                     for_id="new-regex"),
            labelled("Minimum confidence", text_input("min_confidence", placeholder="0 to 1, optional"),
                     "min_confidence", hint="Gate when an agent reports less.", for_id="new-min-confidence"),
            spacing="3", width="100%",
            grid_template_columns=rx.breakpoints(initial="minmax(0, 1fr)",
                                                 sm="minmax(0, 2fr) minmax(0, 1fr) minmax(0, 1fr)"),
        ),
        # Each tool's approval mode in the team decides which calls wait (a held call always opens a
        # review): a choice here could not skip one, so none is offered.
        rx.text("Tool calls wait for approval as the team's tools say (approval: always, or when a rule on the "
                "arguments matches); the team editor sets that.", size="1", color_scheme="gray", id="tools-note"),
        error_for("gate_policy"),
        spacing="3",
    ), size="2", width="100%")


def model_row(agent: StringVar) -> rx.Component:
    # New.providers, New.models: dict state vars indexed by a Var (ObjectVars on the class; dicts to mypy).
    return rx.table.row(
        rx.table.row_header_cell(rx.text(agent, weight="medium")),
        rx.table.cell(rx.select.root(
            rx.select.trigger(width="9em", aria_label="Model provider of " + agent),
            rx.select.content(*[rx.select.item(p, value=p) for p in start_options.PROVIDERS]),
            value=New.providers[agent], on_change=lambda v: New.set_provider(agent, v), size="1",  # type: ignore[index]
        ), data_label="Provider"),
        rx.table.cell(rx.input(value=New.models[agent], on_change=lambda v: New.set_model(agent, v), size="1",  # type: ignore[index]
                               disabled=New.providers[agent] == "scripted", width="14em",  # type: ignore[index]
                               placeholder="model name, e.g. gpt-4o-mini", aria_label="Model of " + agent),
                      data_label="Model"),
        class_name="model-row", data_agent=agent,
    )


def models_section() -> rx.Component:
    return rx.card(rx.vstack(
        rx.heading("Models", size="3", as_="h2"),
        rx.text("scripted is the offline model; openai uses the server's OpenAI-compatible endpoint.", size="1",
                color_scheme="gray"),
        rx.table.root(
            rx.table.header(rx.table.row(rx.table.column_header_cell("Agent"),
                                         rx.table.column_header_cell("Provider"),
                                         rx.table.column_header_cell("Model"))),
            rx.table.body(rx.foreach(New.agents, model_row)),
            size="1", width="100%", class_name="phone-cards",  # a card per agent on a phone (app.css)
        ),
        error_for("model_routing"),
        spacing="2",
    ), size="2", width="100%")


def new_conversation_page() -> rx.Component:
    return page_layout(
        rx.heading("New conversation", size="6", as_="h1"),
        rx.form(
            rx.vstack(
                task_section(),
                # One above the other below 1024 px: side by side, the models' table was cut.
                rx.grid(policy_section(), models_section(), spacing="4", width="100%",
                        grid_template_columns=rx.breakpoints(initial="minmax(0, 1fr)",
                                                             md="minmax(0, 3fr) minmax(0, 2fr)")),
                error_for("form"),
                rx.hstack(
                    rx.button(rx.icon("play", size=14), "Start conversation", type="submit", size="3",
                              loading=New.submitting, id="start-conversation"),
                    justify="end", width="100%",
                ),
                spacing="4", width="100%",
            ),
            on_submit=New.submit, reset_on_submit=False, width="100%",
        ),
    )
