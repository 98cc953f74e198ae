"""The Webhooks page's "Slack users" section: link a Slack user to a member of this workspace (their
clicks on its reviews' Approve and Deny buttons then act as that member, with the roles held here),
and remove a link (behind a confirmation)."""

from __future__ import annotations

import reflex as rx

from hitl_dashboard.ui.components.confirm import confirmed
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.slack_links import MAX_ID, MAX_NAME, SlackLinkRow
from hitl_dashboard.ui.states.slack_links import SlackLinksState as Links

FIELDS = (("slack_team_id", "Slack workspace id", "T0123ABCD", Links.slack_team, Links.set_slack_team, MAX_ID),
          ("slack_user_id", "Slack user id", "U0123ABCD", Links.slack_user, Links.set_slack_user, MAX_ID),
          ("username", "Acts as (member)", "username", Links.member, Links.set_member, MAX_NAME))


def _field(name: str, label: str, hint: str, value, on_change, limit: int) -> rx.Component:
    element_id = f"slack-link-{name.replace('_', '-')}"
    return rx.vstack(
        rx.text(label, size="1", weight="medium"),
        rx.input(value=value, on_change=on_change, id=element_id, name=name, placeholder=hint, aria_label=label,
                 max_length=limit, width="14em", max_width="100%"),
        rx.cond(Links.error_field == name, rx.text(Links.error, size="1", color_scheme="red", role="alert",
                                                   class_name="field-error")),
        spacing="1", max_width="100%")


def _link_row(row: RowVar[SlackLinkRow]) -> rx.Component:
    return rx.table.row(
        rx.table.row_header_cell(rx.text(row.slack_team_id, " / ", row.slack_user_id, size="2")),
        rx.table.cell(rx.text(row.username, size="2", class_name="slack-link-member")),
        rx.table.cell(rx.text(row.created, size="1")),
        rx.table.cell(confirmed(
            rx.button("Unlink", size="1", variant="soft", color_scheme="red", high_contrast=True,
                      class_name="unlink-slack-user"),
            title="Unlink this Slack user?",
            description="Their clicks in Slack decide nothing more in this workspace. The audit trail keeps "
                        "what they decided.",
            confirm_label="Unlink", on_confirm=Links.unlink(row.link_id),
            confirm_id="confirm-unlink-" + row.link_id.to_string())),
        class_name="slack-link-row", key=row.link_id.to_string(),
    )


def slack_links_section() -> rx.Component:
    return rx.vstack(
        rx.heading("Slack users", size="3", as_="h2"),
        rx.text("Who may press Approve or Deny in this workspace's Slack messages, and as which member: "
                "only a linked Slack user can, with the roles that member holds here.",
                size="1", color_scheme="gray"),
        rx.form(rx.hstack(*[_field(*f) for f in FIELDS],
                          rx.button(rx.icon("link", size=14), "Link", type="submit", id="link-slack-user"),
                          spacing="3", align="end", wrap="wrap", width="100%"),
                on_submit=Links.link, reset_on_submit=False, width="100%"),
        rx.cond((Links.error != "") & (Links.error_field == ""),
                rx.text(Links.error, size="2", color_scheme="red", role="alert", id="slack-link-error")),
        rx.cond(Links.links.length() > 0,
                rx.table.root(
                    rx.table.header(rx.table.row(*[rx.table.column_header_cell(t) for t in (
                        "Slack workspace / user", "Acts as", "Linked", "")])),
                    rx.table.body(rx.foreach(Links.links, _link_row)),
                    size="1", variant="surface", width="100%", id="slack-links-table", class_name="phone-cards"),
                rx.text("No Slack user is linked: Slack messages show the buttons, but no click decides anything.",
                        size="2", color_scheme="gray", id="no-slack-links")),
        spacing="2", width="100%",
    )
