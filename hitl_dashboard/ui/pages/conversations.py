"""Conversations page: every conversation, newest first, a page at a time, with filters and a search."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.conversation_table import conversation_table
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.states.conversations import ALL, PAGE_SIZE, STATUSES, TASK_TYPES, ConversationListState


def filter_select(label: str, options: tuple[str, ...], value, on_change, id_: str) -> rx.Component:
    return rx.select.root(
        rx.select.trigger(placeholder=label, width="11em", id=id_, aria_label=label),
        rx.select.content(
            rx.select.item(f"Any {label.lower()}", value=ALL),
            *[rx.select.item(option.replace("_", " "), value=option) for option in options],
        ),
        value=value, on_change=on_change, size="2",
    )


def search_form() -> rx.Component:
    """Words of the title or task, who started it, created between two days. Labelled inputs: a
    placeholder is not a name for a screen reader."""

    def field(label: str, name: str, value, **props) -> rx.Component:
        return rx.vstack(
            rx.el.label(label, html_for=f"conversation-{name}", class_name="field-label"),
            rx.input(name=name, id=f"conversation-{name}", default_value=value, size="2", **props),
            spacing="1",
        )

    return rx.form(
        rx.hstack(
            field("Search title and task", "q", ConversationListState.search, type="search",
                  placeholder="words", max_length=200, width="18em"),
            field("Started by", "initiator", ConversationListState.initiator_filter, placeholder="username",
                  max_length=64, width="10em"),
            field("Created from", "from", ConversationListState.created_from, type="date"),
            field("Created to", "to", ConversationListState.created_to, type="date"),
            rx.button(rx.icon("search", size=16), "Search", type="submit", id="conversation-search-submit"),
            rx.cond(
                ConversationListState.filtered,
                rx.button("Clear filters", type="button", variant="ghost", on_click=ConversationListState.clear_filters,
                          id="conversation-clear-filters"),
            ),
            align="end",
            wrap="wrap",
            spacing="3",
        ),
        # The form is keyed by the URL's filters so it shows them again after a navigation.
        key=ConversationListState.search + "|" + ConversationListState.initiator_filter + "|"
        + ConversationListState.created_from + "|" + ConversationListState.created_to,
        on_submit=ConversationListState.apply_search,
        reset_on_submit=False,
        role="search",
        width="100%",
    )


def pager(where: str) -> rx.Component:
    return rx.hstack(
        rx.text(ConversationListState.range_label, color_scheme="gray", size="2", id=f"conversation-range-{where}"),
        rx.spacer(),
        rx.cond(ConversationListState.newer_href != "",
                rx.link(rx.button(rx.icon("chevron-left", size=16), "Newer", variant="soft"),
                        href=ConversationListState.newer_href, id=f"conversations-newer-{where}")),
        rx.cond(ConversationListState.older_href != "",
                rx.link(rx.button("Older", rx.icon("chevron-right", size=16), variant="soft"),
                        href=ConversationListState.older_href, id=f"conversations-older-{where}")),
        align="center",
        width="100%",
    )


def conversations_page() -> rx.Component:
    return page_layout(
        rx.hstack(
            rx.vstack(
                rx.heading("Conversations", size="7", as_="h1"),
                rx.text(f"Newest first, {PAGE_SIZE} to a page.", color_scheme="gray"),
                spacing="1",
            ),
            rx.spacer(),
            filter_select("Status", STATUSES, ConversationListState.status_filter,
                          ConversationListState.filter_status, "filter-status"),
            filter_select("Task type", TASK_TYPES, ConversationListState.type_filter,
                          ConversationListState.filter_type, "filter-task-type"),
            rx.button(
                rx.icon("refresh-cw", size=16),
                "Refresh",
                on_click=ConversationListState.refresh,
                loading=ConversationListState.loading,
                variant="soft",
                id="refresh-conversations",
            ),
            align="end",
            width="100%",
            wrap="wrap",
        ),
        search_form(),
        rx.cond(
            ConversationListState.error != "",
            rx.callout(ConversationListState.error, icon="triangle-alert", color_scheme="red", role="alert"),
        ),
        pager("top"),
        conversation_table(),
        pager("bottom"),
    )
