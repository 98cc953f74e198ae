"""The workspace page (issue 41): members and their roles in the workspace shown; every workspace,
for the instance admin. Laid out as cards that wrap, so it works on a phone too."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.access import guarded
from hitl_dashboard.ui.components.layout import page_layout
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.pages.admin_users import role_badge
from hitl_dashboard.ui.states.admin_workspaces import MEMBER_ROLES, MemberRow, WorkspaceRow
from hitl_dashboard.ui.states.admin_workspaces import AdminWorkspacesState as Spaces
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.views.formatting import ROLE_LABELS

DENIED = "You need the workspace admin role in this workspace to manage its members."


def member_form() -> rx.Component:
    return rx.card(rx.form(rx.vstack(
        rx.heading("Add a member, or change their roles", size="3", as_="h2"),
        rx.input(value=Spaces.member_name, on_change=Spaces.set_member_name, placeholder="username",
                 id="member-username", name="username", max_width="18em"),
        rx.hstack(*[rx.checkbox(ROLE_LABELS[role], checked=Spaces.member_roles.contains(role),
                                on_change=lambda checked, role=role: Spaces.toggle_member_role(role, checked),
                                size="1", id=f"member-role-{role}", name=f"member-role-{role}")
                    for role in MEMBER_ROLES], spacing="3", wrap="wrap"),
        rx.cond(Spaces.member_error != "",
                rx.text(Spaces.member_error, size="1", color_scheme="red", role="alert", id="member-error")),
        rx.button(rx.icon("user-plus", size=14), "Save member", type="submit", size="2", id="save-member"),
        spacing="3"), on_submit=Spaces.save_member, reset_on_submit=False), width="100%")


def member_card(row: RowVar[MemberRow]) -> rx.Component:
    return rx.card(rx.hstack(
        rx.vstack(rx.text(row.username, weight="medium", class_name="member-name"),
                  rx.hstack(rx.foreach(row.roles, role_badge), spacing="1", wrap="wrap"), spacing="1"),
        rx.spacer(),
        rx.button("Roles", size="1", variant="soft", on_click=Spaces.edit_member(row.username),
                  class_name="edit-member"),
        rx.button("Remove", size="1", variant="soft", color_scheme="red", high_contrast=True,
                  on_click=Spaces.remove_member(row.username), class_name="remove-member"),
        align="center", spacing="2", wrap="wrap", width="100%"),
        key=row.username, class_name="member-row", data_username=row.username, width="100%")


def workspace_card(row: RowVar[WorkspaceRow]) -> rx.Component:
    return rx.card(rx.hstack(
        rx.vstack(rx.text(row.name, weight="medium"), rx.text(row.slug, size="1", color_scheme="gray",
                                                               class_name="workspace-slug"), spacing="0"),
        rx.cond(row.archived, rx.badge("archived", color_scheme="gray", size="1")),
        rx.spacer(),
        rx.button("Rename", size="1", variant="soft", on_click=Spaces.start_rename(row.slug),
                  class_name="rename-workspace"),
        rx.cond(~row.archived, rx.button("Archive", size="1", variant="soft", color_scheme="red", high_contrast=True,
                                         on_click=Spaces.archive_workspace(row.slug), class_name="archive-workspace")),
        align="center", spacing="2", wrap="wrap", width="100%"),
        key=row.slug, class_name="workspace-row", data_slug=row.slug, width="100%")


def instance_section() -> rx.Component:
    return rx.vstack(
        rx.heading("Every workspace", size="4", as_="h2", margin_top="1em"),
        rx.card(rx.form(rx.hstack(
            rx.input(value=Spaces.new_slug, on_change=Spaces.set_new_slug, placeholder="slug, e.g. payments",
                     id="new-workspace-slug", name="slug", max_width="14em"),
            rx.input(value=Spaces.new_name, on_change=Spaces.set_new_name, placeholder="name, e.g. Payments",
                     id="new-workspace-name", name="name", max_width="18em"),
            rx.button(rx.icon("plus", size=14), "Create", type="submit", size="2", id="create-workspace"),
            spacing="2", wrap="wrap"), on_submit=Spaces.create_workspace, reset_on_submit=False), width="100%"),
        rx.cond(Spaces.create_error != "",
                rx.text(Spaces.create_error, size="1", color_scheme="red", role="alert", id="workspace-error")),
        rx.foreach(Spaces.all_workspaces, workspace_card),
        rx.dialog.root(rx.dialog.content(
            rx.dialog.title("Rename ", Spaces.renaming),
            rx.input(value=Spaces.rename_name, on_change=Spaces.set_rename_name, id="rename-workspace-name"),
            rx.hstack(rx.dialog.close(rx.button("Cancel", variant="soft", color_scheme="gray", size="2")),
                      rx.button("Save", on_click=Spaces.save_rename, size="2", id="save-rename"),
                      justify="end", spacing="2", margin_top="1em"),
            max_width="30em"), open=Spaces.renaming != "", on_open_change=Spaces.close_rename),
        spacing="2", width="100%",
    )


def admin_workspaces_page() -> rx.Component:
    return page_layout(
        rx.heading("Workspace members", size="6", as_="h1"),
        guarded(
            AppState.can_manage_workspace, DENIED,
            rx.vstack(
                rx.text("Who holds which roles in this workspace. A person may be in several workspaces, with "
                        "different roles in each. Changes are audited, and reach open pages within seconds.",
                        size="2", color_scheme="gray"),
                member_form(),
                rx.vstack(rx.foreach(Spaces.members, member_card), spacing="2", width="100%", id="members"),
                rx.cond(AppState.is_admin, instance_section()),
                spacing="3", width="100%",
            ),
        ),
    )
