"""Wires every page to its route, title and load events."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui import routes
from hitl_dashboard.ui.components.layout import APP_TITLE
from hitl_dashboard.ui.pages.home import home
from hitl_dashboard.ui.states.conversations import ConversationListState


def add_pages(app: rx.App) -> None:
    app.add_page(home, route=routes.HOME, title=APP_TITLE, on_load=ConversationListState.load)
