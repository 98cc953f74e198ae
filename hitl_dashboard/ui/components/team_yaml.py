"""The team editor's YAML view (issue 30): the whole file with line numbers, and each problem at its
place: its line highlighted, a marker at its column, and its message beside that line. The text
grows with the file (no scroll of its own), so the numbers, the marks and the messages scroll with
it in one box and stay on their lines. Messages are plain text (they may quote the file)."""

from __future__ import annotations

import reflex as rx
from reflex.vars import NumberVar

from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.admin_teams import AdminTeamsState as Teams
from hitl_dashboard.ui.views.team_problems import YamlMark

LINE_PX, PAD_PX = 20, 8  # the text's line height and top padding: a mark's top is computed from them
TEXT_STYLE = {"font_family": "var(--code-font-family)", "font_size": "13px", "line_height": f"{LINE_PX}px",
              "padding_top": f"{PAD_PX}px", "padding_bottom": f"{PAD_PX}px", "margin": "0"}


def _top(line: NumberVar, after: int = 0) -> rx.Var:
    return f"calc({PAD_PX}px + " + (line - 1 + after).to_string() + f" * {LINE_PX}px)"


def _band(mark: RowVar[YamlMark]) -> rx.Component:
    """The highlighted line, with a marker under the column."""
    return rx.box(
        rx.box(class_name="yaml-mark-column", position="absolute", bottom="0", width="1ch", height="3px",
               background=rx.color("red", 9), left="calc(0.5em + " + (mark.column - 1).to_string() + "ch)"),
        class_name="yaml-mark", data_line=mark.line, data_column=mark.column, position="absolute", left="0",
        right="0", top=_top(mark.line), height=f"{LINE_PX}px", background=rx.color("red", 4), opacity="0.6",
        pointer_events="none", style={"font_family": "var(--code-font-family)", "font_size": "13px"},
    )


def _message(mark: RowVar[YamlMark]) -> rx.Component:
    return rx.box(
        rx.text(rx.icon("circle-alert", size=12, style={"display": "inline", "vertical_align": "-2px"}),
                " line ", mark.line, ", column ", mark.column, ": ", mark.message,
                size="1", color_scheme="red", style={"white_space": "pre-wrap", "word_break": "break-word"}),
        class_name="yaml-mark-message", data_line=mark.line, role="alert", position="absolute", left="0.5em",
        right="0.5em", top=_top(mark.line), padding="0 0.4em", background=rx.color("red", 2),
        border_left=f"3px solid {rx.color('red', 9)}", z_index="1",
    )


def yaml_view() -> rx.Component:
    return rx.vstack(
        rx.text("The team file (docs/teams.md)", size="1", weight="medium", as_="label", html_for="team-yaml"),
        rx.box(rx.hstack(
            rx.el.pre(Teams.yaml_line_numbers, aria_hidden="true", class_name="yaml-gutter",
                      style={**TEXT_STYLE, "text_align": "right", "min_width": "3.5em", "padding_right": "0.6em",
                             "color": rx.color("gray", 9), "user_select": "none",
                             "border_right": f"1px solid {rx.color('gray', 5)}"}),
            rx.box(
                rx.foreach(Teams.marks, _band),
                rx.debounce_input(rx.el.textarea(
                    value=Teams.yaml_text, on_change=Teams.set_yaml, on_blur=Teams.check_yaml, rows=Teams.yaml_rows,
                    wrap="off", spell_check=False, id="team-yaml", aria_invalid=Teams.marks.length() > 0,
                    style={**TEXT_STYLE, "width": "100%", "border": "none", "outline": "none", "resize": "none",
                           "overflow_y": "hidden", "overflow_x": "auto", "padding_left": "0.5em",
                           "background": "transparent", "position": "relative", "color": "inherit"},
                ), debounce_timeout=300),
                position="relative", flex="1", min_width="0",
            ),
            rx.cond(Teams.marks.length() > 0,
                    rx.box(rx.foreach(Teams.marks, _message), position="relative", width="22em", flex_shrink="0",
                           class_name="yaml-messages")),
            spacing="0", align="start", width="100%",
        ), width="100%", max_height="70vh", overflow_y="auto", id="team-yaml-box",
            border=rx.cond(Teams.marks.length() > 0, f"1px solid {rx.color('red', 8)}",
                           f"1px solid {rx.color('gray', 6)}"),
            border_radius="var(--radius-2)"),
        spacing="2", width="100%",
    )
