"""Pages for managers and admins (audit, users) and the new-conversation page."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui import routes
from hitl_dashboard.ui.components.layout import APP_TITLE
from hitl_dashboard.ui.pages.admin_teams import admin_teams_page
from hitl_dashboard.ui.pages.admin_users import admin_users_page
from hitl_dashboard.ui.pages.analytics import analytics_page
from hitl_dashboard.ui.pages.audit import audit_page
from hitl_dashboard.ui.pages.new_conversation import new_conversation_page
from hitl_dashboard.ui.states.admin_teams import AdminTeamsState
from hitl_dashboard.ui.states.admin_users import AdminUsersState
from hitl_dashboard.ui.states.allowed_mcp import AllowedMcpState
from hitl_dashboard.ui.states.analytics import AnalyticsState
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.audit import AuditState
from hitl_dashboard.ui.states.audit_insights import AuditInsightsState
from hitl_dashboard.ui.states.new_conversation import NewConversationState


def add_manager_pages(app: rx.App) -> None:
    """Registered from pages/registry.py. Every on_load starts with the sign-in check."""
    app.add_page(audit_page, route=routes.AUDIT, title=f"Audit · {APP_TITLE}",
                 on_load=[AppState.require_login, AuditState.load, AuditInsightsState.load])
    app.add_page(analytics_page, route=routes.ANALYTICS, title=f"Analytics · {APP_TITLE}",
                 on_load=[AppState.require_login, AnalyticsState.load])
    app.add_page(admin_users_page, route=routes.ADMIN_USERS, title=f"Users · {APP_TITLE}",
                 on_load=[AppState.require_login, AdminUsersState.load])
    app.add_page(admin_teams_page, route=routes.ADMIN_TEAMS, title=f"Teams · {APP_TITLE}",
                 on_load=[AppState.require_login, AdminTeamsState.load, AllowedMcpState.load])
    app.add_page(new_conversation_page, route=routes.NEW_CONVERSATION, title=f"New conversation · {APP_TITLE}",
                 on_load=[AppState.require_login, NewConversationState.reset_form])
