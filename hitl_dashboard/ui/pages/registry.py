"""Wires every page to its route, title and load events."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui import routes
from hitl_dashboard.ui.components.layout import APP_TITLE
from hitl_dashboard.ui.pages.conversation import conversation_page
from hitl_dashboard.ui.pages.conversations import conversations_page
from hitl_dashboard.ui.pages.login import login
from hitl_dashboard.ui.pages.manager_registry import add_manager_pages
from hitl_dashboard.ui.pages.queue import queue_page
from hitl_dashboard.ui.pages.settings_registry import add_settings_pages
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.conversation_page import ConversationPageState
from hitl_dashboard.ui.states.conversations import ConversationListState
from hitl_dashboard.ui.states.decision import DecisionState
from hitl_dashboard.ui.states.diff_files import DiffFilesState
from hitl_dashboard.ui.states.diff_folds import DiffFoldsState
from hitl_dashboard.ui.states.edit_review import EditReviewState
from hitl_dashboard.ui.states.external_request import ExternalRequestState
from hitl_dashboard.ui.states.feeds import ConversationFeed, QueueFeed
from hitl_dashboard.ui.states.forks import ForkState
from hitl_dashboard.ui.states.login import LoginState


def add_pages(app: rx.App) -> None:
    app.add_page(login, route=routes.LOGIN, title=f"Sign in · {APP_TITLE}", on_load=LoginState.prepare)
    app.add_page(conversations_page, route=routes.HOME, title=APP_TITLE, on_load=AppState.go_home)
    app.add_page(conversations_page, route=routes.CONVERSATIONS, title=f"Conversations · {APP_TITLE}",
                 on_load=[AppState.require_login, ConversationListState.load])
    app.add_page(queue_page, route=routes.QUEUE, title=f"Review queue · {APP_TITLE}",
                 on_load=[AppState.require_login, QueueFeed.open_from_url])
    app.add_page(conversation_page, route=routes.CONVERSATION, title=f"Conversation · {APP_TITLE}",
                 on_load=[AppState.require_login, ConversationFeed.open_from_url, ConversationPageState.reset_view,
                          DiffFilesState.reset_folds, DiffFoldsState.forget, DecisionState.load_draft,
                          ForkState.load_tree, ExternalRequestState.load, EditReviewState.close_editor])
    app.add_page(conversations_page, route=routes.REVIEW_LINK, title=APP_TITLE, on_load=AppState.go_to_review)
    add_manager_pages(app)
    add_settings_pages(app)
