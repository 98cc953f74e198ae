"""Pages of one's own settings and the admins': /tokens (everyone), /webhooks (admins), /admin/workspaces
(workspace admins: members; the instance admin: every workspace)."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui import routes
from hitl_dashboard.ui.components.layout import APP_TITLE
from hitl_dashboard.ui.pages.admin_workspaces import admin_workspaces_page
from hitl_dashboard.ui.pages.rules import rules_page
from hitl_dashboard.ui.pages.tokens import tokens_page
from hitl_dashboard.ui.pages.webhooks import webhooks_page
from hitl_dashboard.ui.states.admin_workspaces import AdminWorkspacesState
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.rule_candidates import RuleCandidatesState
from hitl_dashboard.ui.states.rules import RulesState
from hitl_dashboard.ui.states.slack_links import SlackLinksState
from hitl_dashboard.ui.states.tokens import TokensState
from hitl_dashboard.ui.states.webhooks import WebhooksState


def add_settings_pages(app: rx.App) -> None:
    """Registered from pages/registry.py. Every on_load starts with the sign-in check."""
    app.add_page(tokens_page, route=routes.TOKENS, title=f"API tokens · {APP_TITLE}",
                 on_load=[AppState.require_login, TokensState.load])
    app.add_page(webhooks_page, route=routes.WEBHOOKS, title=f"Webhooks · {APP_TITLE}",
                 on_load=[AppState.require_login, WebhooksState.load, SlackLinksState.load])
    app.add_page(rules_page, route=routes.RULES, title=f"Standing rules · {APP_TITLE}",
                 on_load=[AppState.require_login, RulesState.load, RuleCandidatesState.load_candidates])
    app.add_page(admin_workspaces_page, route=routes.ADMIN_WORKSPACES, title=f"Workspace · {APP_TITLE}",
                 on_load=[AppState.require_login, AdminWorkspacesState.load])
