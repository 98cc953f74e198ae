"""The one page template: a header bar with role-aware navigation and a content column."""

from __future__ import annotations

import reflex as rx
from reflex.event import EventSpec
from reflex.vars import ObjectVar

from hitl_dashboard.ui import routes
from hitl_dashboard.ui.components.post_form import hidden_field, post_form
from hitl_dashboard.ui.components.queue_watch import queue_watch
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.session_watch import SessionWatch

APP_TITLE = "HITL Dashboard"


def nav_link(label: str, href: str, icon: str, id_: str) -> rx.Component:
    return rx.link(
        rx.hstack(rx.icon(icon, size=15), rx.text(label, size="2"), align="center", spacing="1"),
        href=href, underline="none", color_scheme="gray", high_contrast=True, id=id_,
    )


# Radix breakpoints: "lg" starts at 1280 px, "xl" at 1640 px. Below 1280 px the header is a menu (the
# pages stack only below 768 px): an instance admin's eight links, the workspace switcher and the user's
# items need 1,250 px, and at 1024 px they pushed the page sideways.
WIDE_ONLY = rx.breakpoints(initial="none", lg="flex")
NARROW_ONLY = rx.breakpoints(initial="flex", lg="none")
NAV_ITEMS = (  # label, route, icon, element id, shown when
    ("Queues", routes.QUEUE, "inbox", "nav-queue", AppState.review_roles.length() > 0),
    ("Conversations", routes.CONVERSATIONS, "messages-square", "nav-conversations", None),
    ("New", routes.NEW_CONVERSATION, "circle-plus", "nav-new", None),
    # Standing rules: made and read by the deciding roles and workspace admins (the services check).
    ("Rules", routes.RULES, "list-checks", "nav-rules", (AppState.review_roles.length() > 0)
     | AppState.can_manage_workspace),
    ("Audit", routes.AUDIT, "scroll-text", "nav-audit", AppState.can_read_audit),
    ("Analytics", routes.ANALYTICS, "chart-column", "nav-analytics", AppState.can_read_audit),
    ("Users", routes.ADMIN_USERS, "users", "nav-users", AppState.is_admin),
    # A workspace admin's page; the instance admin reaches it from the users page (the header is full).
    ("Workspace", routes.ADMIN_WORKSPACES, "building-2", "nav-workspaces",
     AppState.can_manage_workspace & ~AppState.is_admin),
    ("Teams", routes.ADMIN_TEAMS, "bot", "nav-teams", AppState.can_manage_workspace),
    ("Webhooks", routes.WEBHOOKS, "webhook", "nav-webhooks", AppState.can_manage_workspace),
)


def _when(condition, component: rx.Component) -> rx.Component:
    return component if condition is None else rx.cond(condition, component)


# An admin's header (the instance admin's or a workspace admin's) is full at 1280 px (every link, the
# switcher, a long name): these show there from 1640 px ("xl") only; between, the queue page links
# them, and below 1280 px the menu has them. Everybody else's header has room.
ADMIN_XL_ONLY = {"nav-rules"}


def _nav_entry(label: str, href: str, icon: str, id_: str) -> rx.Component:
    link = nav_link(label, href, icon, id_)
    if id_ not in ADMIN_XL_ONLY:
        return link
    return rx.cond(AppState.can_manage_workspace, rx.box(link, display=rx.breakpoints(initial="none", xl="flex")), link)


def navigation() -> rx.Component:
    return rx.el.nav(rx.hstack(
        *[_when(shown, _nav_entry(label, href, icon, id_)) for label, href, icon, id_, shown in NAV_ITEMS],
        spacing=rx.breakpoints(initial="3", xl="4"),
        align="center",
    ), aria_label="Main")


SIGN_OUT, SIGN_OUT_EVERYWHERE = "/auth/sign-out", "/auth/sign-out-everywhere"


def sign_out_forms() -> rx.Component:
    """Posted by the browser itself (the HTTP routes clear the HttpOnly cookie); both menus submit these."""
    return rx.fragment(*[
        post_form(hidden_field("csrf", AppState.csrf_token), action=action, id=form_id, display="none")
        for action, form_id in ((SIGN_OUT, "sign-out-form"), (SIGN_OUT_EVERYWHERE, "sign-out-everywhere-form"))
    ])


def _submit(form_id: str) -> EventSpec:
    return rx.call_script(f"document.getElementById('{form_id}').requestSubmit()")


def user_menu() -> rx.Component:
    """The user's name opens a small menu with the rarer "Sign out everywhere"; Sign out stays one click."""
    return rx.hstack(
        # An icon beside the name (the admins' header is already full): the user's own API tokens.
        rx.link(rx.icon("key-round", size=16), href=routes.TOKENS, color_scheme="gray", high_contrast=True,
                aria_label="API tokens", title="API tokens", id="nav-tokens", display="flex"),
        rx.menu.root(
            rx.menu.trigger(rx.button(
                # A name may be 64 characters: cut to fit the header, whole on hover (the button's title).
                rx.text(AppState.username, size="2", weight="medium", white_space="nowrap", id="signed-in-user",
                        max_width="10em", overflow="hidden", text_overflow="ellipsis"),
                # Named by the user's name it shows (a different aria-label would hide it from speech input).
                rx.icon("chevron-down", size=14), variant="ghost", color_scheme="gray", size="1", id="user-menu",
                title=AppState.username)),
            rx.menu.content(
                rx.menu.item("Sign out everywhere", on_select=_submit("sign-out-everywhere-form"),
                             id="sign-out-everywhere"),
                align="end",
            ),
        ),
        rx.button("Sign out", type="submit", form="sign-out-form", size="1", variant="soft", color_scheme="gray",
                  id="sign-out"),
        align="center",
        spacing="3",
    )


def workspace_item(workspace: ObjectVar[dict[str, str]]) -> rx.Component:
    """One workspace in the phone's menu; the one shown is checked (the switcher's choice on a phone)."""
    current = workspace["slug"] == AppState.workspace
    return rx.menu.item(
        rx.hstack(rx.icon("check", size=15, opacity=rx.cond(current, "1", "0")), workspace["name"].to(str),
                  align="center", spacing="2"),
        on_select=AppState.switch_workspace(workspace["slug"].to(str)), class_name="menu-workspace",
        custom_attrs={"data-slug": workspace["slug"], "aria-current": rx.cond(current, "true", "false")},
    )


def narrow_menu() -> rx.Component:
    """The navigation and the user's items in one Radix dropdown (keyboard operable: Enter or Space
    opens it, arrows move, Escape closes); its content is mounted only while open."""
    def item(label: str, href: str, icon: str, id_: str, shown) -> rx.Component:
        # on_select, not a link inside the item: Radix's item cannot slot onto Reflex's link.
        entry = rx.menu.item(rx.hstack(rx.icon(icon, size=15), label, align="center", spacing="2"),
                             on_select=rx.redirect(href), id="menu-" + id_.removeprefix("nav-"))
        return _when(shown, entry)

    return rx.el.nav(rx.menu.root(
        rx.menu.trigger(rx.icon_button(rx.icon("menu", size=18), size="2", variant="soft", color_scheme="gray",
                                       aria_label="Menu", title="Menu", id="nav-menu")),
        rx.menu.content(
            *[item(*entry) for entry in NAV_ITEMS],
            rx.cond(AppState.workspaces.length() > 1, rx.fragment(
                rx.menu.separator(),
                rx.text("Workspace", size="1", color_scheme="gray", padding_x="0.75em"),
                rx.foreach(AppState.workspaces, workspace_item),
            )),
            rx.menu.separator(),
            rx.text("Signed in as ", AppState.username, size="1", color_scheme="gray", padding_x="0.75em"),
            rx.menu.item(rx.hstack(rx.icon("key-round", size=15), "API tokens", align="center", spacing="2"),
                         on_select=rx.redirect(routes.TOKENS), id="menu-tokens"),
            rx.menu.item("Sign out", on_select=_submit("sign-out-form"), id="menu-sign-out"),
            rx.menu.item("Sign out everywhere", on_select=_submit("sign-out-everywhere-form"),
                         id="menu-sign-out-everywhere"),
            align="end",
        ),
    ), aria_label="Main", display=NARROW_ONLY)


def workspace_switcher() -> rx.Component:
    """Which workspace the lists, queues and charts show (issue 41); only for someone in several.
    The server checks the choice against the user's memberships (AppState.switch_workspace)."""
    return rx.cond(
        AppState.workspaces.length() > 1,
        rx.select.root(
            rx.select.trigger(variant="ghost", aria_label="Workspace", title="Workspace", id="workspace-switcher",
                              max_width="9em"),
            rx.select.content(rx.foreach(AppState.workspaces,
                                         lambda w: rx.select.item(w["name"], value=w["slug"]))),
            value=AppState.workspace, on_change=AppState.switch_workspace, size="2",
        ),
    )


def app_title() -> rx.Component:
    """The product's name beside its icon; for someone in several workspaces, from 1280 px only on
    very wide windows: the header's workspace switcher takes its place there (an admin's header must
    fit 1280 px). On a phone the menu holds the workspaces, and the name stays (a wide enough link)."""
    title = {"weight": "bold", "size": "4", "white_space": "nowrap"}
    return rx.cond(AppState.signed_in & (AppState.workspaces.length() > 1),
                   rx.text(APP_TITLE, display=rx.breakpoints(initial="block", lg="none", xl="block"), **title),
                   rx.text(APP_TITLE, **title))


def header() -> rx.Component:
    return rx.el.header(rx.box(
        rx.hstack(
            rx.link(
                rx.hstack(rx.icon("shield-check", size=22), app_title(), align="center"),
                href=routes.HOME, underline="none", color_scheme="gray", high_contrast=True, aria_label=APP_TITLE,
            ),
            rx.cond(AppState.signed_in, rx.box(navigation(), display=WIDE_ONLY)),
            rx.spacer(),
            # On a phone the menu offers the workspaces instead (narrow_menu): the header has no room.
            rx.cond(AppState.signed_in, rx.box(workspace_switcher(), display=WIDE_ONLY)),
            rx.cond(AppState.signed_in, rx.box(user_menu(), display=WIDE_ONLY)),
            rx.icon_button(rx.icon("keyboard", size=16), size="2", variant="ghost", color_scheme="gray",
                           on_click=rx.call_script("window.hitlShowKeys && window.hitlShowKeys()"),
                           aria_label="Keyboard shortcuts (?)", title="Keyboard shortcuts (?)", id="show-shortcuts"),
            rx.color_mode.button(size="2", variant="ghost", aria_label="Switch between light and dark theme",
                                 title="Switch between light and dark theme"),
            rx.cond(AppState.signed_in, narrow_menu()),
            rx.cond(AppState.signed_in, sign_out_forms()),
            align="center",
            spacing=rx.breakpoints(initial="3", xl="5"),
            width="100%",
        ),
        padding_x=rx.breakpoints(initial="0.75em", sm="1.5em"),
        padding_y="0.6em",
        border_bottom=f"1px solid {rx.color('gray', 5)}",
        background_color=rx.color("gray", 2),
        width="100%",
    ), style={"width": "100%"})


def page_layout(*children: rx.Component, size: str = "4") -> rx.Component:
    """size: a Radix container size ("1".."4"), or "wide" for the full window width."""
    content = rx.vstack(*children, spacing="4", width="100%")
    body = (
        rx.box(content, padding_x=rx.breakpoints(initial="0.75em", sm="1.5em"), padding_y="1.25em", width="100%")
        if size == "wide"
        else rx.container(content, size=size, padding_y="1.25em", width="100%")
    )
    return rx.vstack(
        header(),
        rx.cond(AppState.signed_in, queue_watch()),  # unread count in the title, notifications
        # Registers the tab under its user, so deactivating the user sends it to sign-in at once.
        rx.cond(AppState.signed_in, rx.el.div(id="session-watch", hidden=True, on_mount=SessionWatch.register)),
        rx.el.main(body, style={"width": "100%"}),
        spacing="0",
        min_height="100vh",
        width="100%",
    )
