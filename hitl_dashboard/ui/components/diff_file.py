"""One file of the code under review: a foldable section with its diff (the newest revision of the
file against the one before, or the pair the reviewer chose to compare) and a "viewed" mark that
survives a reload (ui/states/diff_files.py).

Side by side when there is an old side and room for two halves; otherwise one column (unified): a new
file has nothing to put beside its code, and on a phone two halves leave neither readable."""

from __future__ import annotations

import reflex as rx
from reflex.vars.base import Var

from hitl_dashboard.ui.components.diff_text import fold_message, side_text
from hitl_dashboard.ui.components.diff_viewer import diff_viewer, narrow_viewport
from hitl_dashboard.ui.components.findings import render_gutter
from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.app_state import AppState
from hitl_dashboard.ui.states.conversation_page import ConversationPageState as Page
from hitl_dashboard.ui.states.decision import DecisionState
from hitl_dashboard.ui.states.diff_files import DiffFilesState as Files
from hitl_dashboard.ui.states.feeds import ConversationFeed as Feed
from hitl_dashboard.ui.views.conversation_view import RevisionRow


def _before(revision: RowVar[RevisionRow], field: str, default: str) -> Var:
    """`field` of the file's previous revision, found in the browser among the revisions it holds."""
    code = (f"((({Feed.revisions} ?? []).filter((r) => r.key === {revision.key} && r.number < {revision.number})"
            f".at(-1) ?? {{}}).{field} ?? {default!r})")
    return Var(_js_expr=code, _var_type=str,
               _var_data=Var.create([Feed.revisions, revision])._get_all_var_data())


def _viewed_key(revision: RowVar[RevisionRow]) -> Var:
    """The mark's key, as DiffFilesState.toggle_viewed builds it: user, revision id, path."""
    return AppState.user_id.to_string() + ":" + revision.id.to_string() + ":" + revision.key


def file_header(revision: RowVar[RevisionRow], viewed: Var, is_open: Var) -> rx.Component:
    return rx.hstack(
        rx.button(
            rx.icon(rx.cond(is_open, "chevron-down", "chevron-right"), size=14),
            rx.code(revision.key, size="2", class_name="diff-file-path"),
            on_click=Files.toggle_fold(revision.key), variant="ghost", size="1", color_scheme="gray",
            aria_expanded=rx.cond(is_open, "true", "false"), class_name="diff-file-toggle",
        ),
        rx.text(_before(revision, "label", "(nothing before)"), " → ", revision.label, size="1",
                color_scheme="gray", white_space="nowrap"),
        rx.badge(revision.analysis, variant="outline", size="1",
                 color_scheme=rx.cond(revision.findings.length() > 0, "orange", "gray")),
        rx.spacer(),
        rx.el.label(
            rx.checkbox(checked=viewed, on_change=lambda _checked: Files.toggle_viewed(revision.id, revision.key),
                        class_name="diff-file-viewed", aria_label="Viewed: " + revision.key),
            rx.text("Viewed", size="1"),
            style={"display": "flex", "alignItems": "center", "gap": "0.35em", "cursor": "pointer"},
        ),
        # Wraps on a phone rather than squeezing the revision label to a few letters per line.
        align="center", spacing="2", width="100%", wrap="wrap", class_name="diff-file-header",
    )


def split_view(old: Var) -> Var:
    """Two halves only if the reviewer wants them, the window has room and there is an old side."""
    return Page.split_view & ~narrow_viewport & (old != "")


def titles(old: Var, old_title: Var | str, new_title: Var | str) -> dict:
    """The viewer shows only left_title in one column: there it names both sides (or the new file)."""
    old_title, new_title = rx.Var.create(old_title).to(str), rx.Var.create(new_title).to(str)
    one_column = rx.cond(old == "", new_title + " (new file)", old_title + " → " + new_title)
    return {"left_title": rx.cond(split_view(old), old_title, one_column), "right_title": new_title}


def pane_scrollbar(pane: str, label: str) -> rx.Component:
    """A scrollbar for one half's long lines, kept at the bottom of the window while the diff is on
    screen; assets/diff_scroll.js sizes it and scrolls the half's lines with it."""
    return rx.box(rx.box(class_name="diff-pane-track"), class_name="diff-pane-scroll", data_pane=pane,
                  custom_attrs={"tabIndex": 0, "aria-label": label})


def pane_scrollbars() -> rx.Component:
    return rx.box(pane_scrollbar("left", "Scroll the long lines of the left side"),
                  pane_scrollbar("right", "Scroll the long lines of the right side"), class_name="diff-pane-bars")


def file_diff(revision: RowVar[RevisionRow]) -> rx.Component:
    """Each side is rebuilt in the browser from the diff's parts, a folded line a placeholder until
    expanded (ui/components/diff_text.py): the line numbers, clicks and findings are the file's own."""
    viewer_props = dict(
        on_line_number_click=lambda line_id: DecisionState.pick_line(line_id, revision.key),
        use_dark_theme=rx.color_mode == "dark",
        render_gutter=render_gutter(revision.key),  # static-analysis findings on their lines
    )
    custom_old = side_text(Page.custom_parts, Page.custom_new_id, "old")
    before = side_text(revision.parts, revision.id, "old")
    return rx.cond(
        (Page.diff_key == revision.key) & (Page.diff_key != ""),
        # A viewer of its own per pair (React key): the viewer keeps which folds were opened by their
        # order, and another pair's fold of that order would open on placeholders never read.
        diff_viewer(key="pair-" + Page.old_id.to_string() + "-" + Page.new_id.to_string() + "-"
                    + Page.custom_new_id.to_string(),
                    old_value=custom_old, new_value=side_text(Page.custom_parts, Page.custom_new_id, "new"),
                    split_view=split_view(custom_old), **titles(custom_old, "older", "newer"),
                    code_fold_message_renderer=fold_message(Page.custom_parts, Page.custom_new_id), **viewer_props),
        diff_viewer(key="newest-" + revision.id.to_string(),
                    old_value=before, new_value=side_text(revision.parts, revision.id, "new"),
                    split_view=split_view(before),
                    **titles(before, _before(revision, "label", "(nothing before)"), revision.label),
                    code_fold_message_renderer=fold_message(revision.parts, revision.id), **viewer_props),
    )


def file_section(revision: RowVar[RevisionRow]) -> rx.Component:
    """Only for the newest revision of each file: one section per file."""
    viewed = Files.viewed.contains(_viewed_key(revision))
    is_open = viewed == Files.flipped.contains(revision.key)  # a viewed file starts folded
    return rx.cond(
        revision.latest,
        rx.el.section(
            file_header(revision, viewed, is_open),
            rx.cond(is_open, rx.box(file_diff(revision), pane_scrollbars(), class_name="diff-file-body",
                                    width="100%")),
            class_name="diff-file", data_key=revision.key,
            custom_attrs={"data-viewed": rx.cond(viewed, "true", "false"),
                          "data-open": rx.cond(is_open, "true", "false")},
            aria_label=revision.key,
        ),
    )
