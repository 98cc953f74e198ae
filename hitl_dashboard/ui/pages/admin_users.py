"""Admin users page: who may sign in, with which roles."""

from __future__ import annotations

import reflex as rx
from reflex.vars import ArrayVar

from hitl_dashboard.ui import routes
from hitl_dashboard.ui.components.access import guarded
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.admin_users import ALL_ROLES, UserRow
from hitl_dashboard.ui.states.admin_users import AdminUsersState as Users
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import ROLE_LABELS

DENIED = "You need the admin role to manage users."
ROLE_COLORS = {"security_reviewer": "red", "product_reviewer": "blue", "final_approver": "green",
               "manager": "violet", "admin": "orange"}


def role_badge(role: rx.Var[str]) -> rx.Component:
    return rx.badge(rx.match(role, *ROLE_LABELS.items(), role), color_scheme=rx.match(role, *ROLE_COLORS.items(),
                    "gray"), variant="soft", size="1", class_name="role-badge", data_role=role)


def role_checkboxes(selected: ArrayVar, on_toggle, prefix: str) -> rx.Component:
    return rx.hstack(
        *[rx.checkbox(ROLE_LABELS[role], checked=selected.contains(role),
                      on_change=lambda checked, role=role: on_toggle(role, checked), size="1",
                      id=f"{prefix}-role-{role}", name=f"{prefix}-role-{role}")
          for role in ALL_ROLES],
        spacing="3", wrap="wrap",
    )


def field_error(name: str) -> rx.Component:
    return rx.cond(Users.add_error_field == name,
                   rx.text(Users.add_error, size="1", color_scheme="red", class_name="field-error", role="alert"))


def add_user_form() -> rx.Component:
    return rx.card(
        rx.form(
            rx.vstack(
                rx.heading("Add a user", size="3", as_="h2"),
                rx.hstack(
                    rx.vstack(rx.text("Username", size="1", weight="medium"),
                              rx.input(value=Users.new_username, on_change=Users.set_new_username, size="2",
                                       id="new-username", name="username", placeholder="lower-case, e.g. grace",
                                       width="14em"),
                              field_error("username"), spacing="1"),
                    rx.vstack(rx.text("Password", size="1", weight="medium"),
                              rx.input(value=Users.new_password, on_change=Users.set_new_password, type="password",
                                       size="2", id="new-password", name="password", width="14em"),
                              field_error("password"), spacing="1"),
                    spacing="4", align="start", wrap="wrap",
                ),
                rx.vstack(rx.text("Roles", size="1", weight="medium"),
                          role_checkboxes(Users.new_roles, Users.toggle_new_role, "new"),
                          field_error("roles"), spacing="1"),
                rx.button(rx.icon("user-plus", size=14), "Add user", type="submit", size="2",
                          loading=Users.adding, id="add-user"),
                spacing="3",
            ),
            on_submit=Users.add_user, reset_on_submit=False,
        ),
        size="2", width="100%",
    )


def user_row(row: RowVar[UserRow]) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(rx.text(row.username, weight="medium", class_name="username")),
        rx.table.cell(rx.text(row.display_name, size="2", color_scheme="gray")),
        rx.table.cell(rx.hstack(rx.foreach(row.roles, role_badge), spacing="1", wrap="wrap"), class_name="roles"),
        rx.table.cell(rx.hstack(
            rx.cond(row.active, rx.badge("active", color_scheme="green", variant="outline", size="1"),
                    rx.badge("deactivated", color_scheme="gray", size="1")),
            rx.cond(row.demo, rx.badge("demo", variant="outline", color_scheme="gray", size="1")),
            spacing="1")),
        rx.table.cell(rx.text(row.created, size="1", color_scheme="gray")),
        rx.table.cell(rx.hstack(
            rx.button(rx.icon("pencil", size=12), "Roles", size="1", variant="soft",
                      on_click=Users.edit(row.username), class_name="edit-roles"),
            rx.cond(row.active,
                    rx.button(rx.icon("user-x", size=12), "Deactivate", size="1", variant="soft", color_scheme="red",
                              high_contrast=True,
                              on_click=Users.ask_status_change(row.username, True), class_name="deactivate-user"),
                    rx.button(rx.icon("user-check", size=12), "Reactivate", size="1", variant="soft",
                              color_scheme="green", high_contrast=True,
                              on_click=Users.ask_status_change(row.username, False),
                              class_name="reactivate-user")),
            spacing="2")),
        key=row.username, class_name="user-row", data_username=row.username,
    )


def roles_dialog() -> rx.Component:
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Roles of ", Users.editing),
            rx.dialog.description("A user may hold several roles. Changes are audited.", size="2",
                                  margin_bottom="0.75em"),
            role_checkboxes(Users.edit_roles, Users.toggle_edit_role, "edit"),
            rx.cond(Users.edit_error != "", rx.text(Users.edit_error, size="1", color_scheme="red", role="alert",
                                                    margin_top="0.5em")),
            rx.hstack(
                rx.dialog.close(rx.button("Cancel", variant="soft", color_scheme="gray", size="2")),
                rx.button("Save roles", on_click=Users.save_roles, size="2", id="save-roles"),
                justify="end", spacing="2", margin_top="1em",
            ),
            max_width="36em",
        ),
        open=Users.editing != "",
        on_open_change=Users.close_edit,
    )


def status_dialog() -> rx.Component:
    return rx.alert_dialog.root(
        rx.alert_dialog.content(
            rx.alert_dialog.title(rx.cond(Users.confirm_deactivate, "Deactivate ", "Reactivate "), Users.confirming),
            rx.alert_dialog.description(
                rx.cond(Users.confirm_deactivate,
                        "Their browser sessions and API tokens end now and they cannot sign in; the reviews "
                        "they claimed go back to their queues. Their conversations, decisions and audit "
                        "history stay. Audited.",
                        "They may sign in again. Their old API tokens stay revoked. Audited."),
                size="2"),
            rx.cond(Users.status_error != "", rx.text(Users.status_error, size="2", color_scheme="red", role="alert",
                                                      margin_top="0.5em", id="status-error")),
            rx.hstack(
                rx.alert_dialog.cancel(rx.button("Cancel", variant="soft", color_scheme="gray", size="2")),
                rx.button(rx.cond(Users.confirm_deactivate, "Deactivate", "Reactivate"), on_click=Users.set_active,
                          color_scheme=rx.cond(Users.confirm_deactivate, "red", "green"), size="2",
                          id="confirm-status"),
                justify="end", spacing="2", margin_top="1em",
            ),
            max_width="34em",
        ),
        open=Users.confirming != "",
        on_open_change=Users.close_confirm,
    )


def admin_users_page() -> rx.Component:
    return page_layout(
        rx.hstack(rx.heading("Users and roles", size="6", as_="h1"), rx.spacer(),
                  rx.link(rx.hstack(rx.icon("building-2", size=15), "Workspaces and members", align="center",
                                    spacing="1"), href=routes.ADMIN_WORKSPACES, id="to-workspaces"),
                  align="center", width="100%", wrap="wrap"),
        rx.text("Roles shown and set here are those in the workspace shown in the header; admin is the "
                "instance's.", size="2", color_scheme="gray"),
        guarded(
            AppState.is_admin, DENIED,
            rx.vstack(
                add_user_form(),
                rx.table.root(
                    rx.table.header(rx.table.row(*[rx.table.column_header_cell(t) for t in
                                                   ("Username", "Name", "Roles", "Status", "Created", "")])),
                    rx.table.body(rx.foreach(Users.rows, user_row)),
                    size="1", variant="surface", width="100%", id="users-table",
                ),
                roles_dialog(),
                status_dialog(),
                spacing="4", width="100%",
            ),
        ),
    )
