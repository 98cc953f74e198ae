"""Static-analysis findings on the diff (issue 14): an icon in a gutter column on each finding's
line (severity colour, the message on hover), a count per file, the list under the diff with one
click to turn a finding into a line comment; and the queue's risk flag.

The gutter is react-diff-viewer's renderGutter: a small JS function over the findings of the
revision on the right-hand side. Finding texts reach it as data (React props and text children),
never as markup, so agent-influenced messages stay inert."""

from __future__ import annotations

import reflex as rx
from reflex.vars.base import Var

from hitl_dashboard.ui.components.row_var import RowVar
from hitl_dashboard.ui.states.conversation_page import ConversationPageState as Page
from hitl_dashboard.ui.states.feeds import ConversationFeed as Feed
from hitl_dashboard.ui.states.findings import FindingsState
from hitl_dashboard.ui.views.conversation_view import RevisionRow
from hitl_dashboard.ui.views.findings_view import FindingRow

CUSTOM = Page.diff_key != ""


def is_shown(revision: RowVar[RevisionRow]) -> Var:
    """Whether the revision is on the right-hand side of its file's diff: the one chosen to compare
    for that file, else the newest of the file (every file of the revision is on the page)."""
    chosen = CUSTOM & (revision.key == Page.diff_key) & (Page.new_id > 0)
    return rx.cond(chosen, revision.id == Page.new_id, revision.latest)


def _shown_findings_js(key: Var) -> str:
    return (
        f"(() => {{ const key = {key}; const id = ({Page.diff_key} === key) ? {Page.new_id} : 0;"
        f" const r = ({Feed.revisions} ?? []).find((x) => id > 0 ? x.id === id : (x.key === key && x.latest));"
        " return r ? r.findings : []; })()"
    )


def render_gutter(key: Var) -> Var:
    """(data) => <td> with one icon per finding on that right-hand line of the file `key`
    (split or unified view)."""
    shown = _shown_findings_js(key)
    code = (
        # One column: an added line comes as prefix 'R' with its number in additionalLineNumber.
        "((data) => { const n = data.prefix === 'R' ? (data.lineNumber ?? data.additionalLineNumber)"
        " : (data.additionalPrefix === 'R' ? data.additionalLineNumber : null);"
        f" const hits = n ? {shown}.filter((f) => f.line === n) : [];"
        " return jsx('td', {className: 'finding-gutter', style: {width: '22px', textAlign: 'center'}},"
        " ...hits.map((f, i) => jsx('span', {key: i, title: f.label, role: 'img', 'aria-label': f.label,"
        " className: 'finding-icon finding-' + f.severity, 'data-line': n, 'data-rule': f.rule,"
        " style: {color: f.css_color, cursor: 'help', fontSize: '11px'}},"
        " f.severity === 'high' ? '\\u25B2' : (f.severity === 'medium' ? '\\u25C6' : '\\u25CF')))); })"
    )
    var_data = Var.create([Page.diff_key, Page.new_id, Feed.revisions, key])._get_all_var_data()
    return Var(_js_expr=code, _var_data=var_data)


def finding_item(finding: RowVar[FindingRow], key: Var) -> rx.Component:
    return rx.hstack(
        rx.badge(finding.severity, color_scheme=finding.color, variant="soft", class_name="finding-severity"),
        rx.code("line ", finding.line.to_string(), size="1"),
        rx.code(finding.analyser, " ", finding.rule, size="1"),
        rx.text(finding.message, size="1", class_name="finding-message"),
        rx.spacer(),
        rx.button(rx.icon("message-square-plus", size=12), "Comment", size="1", variant="ghost",
                  on_click=FindingsState.comment(key, finding.line, finding.rule, finding.message),
                  class_name="finding-comment"),
        # wrap: on a phone the message takes its own line instead of a column a few letters wide.
        align="center", width="100%", wrap="wrap", class_name="finding-row", data_line=finding.line,
        data_rule=finding.rule,
    )


def file_count(revision: RowVar[RevisionRow]) -> rx.Component:
    return rx.cond(
        revision.latest,
        rx.badge(revision.key, ": ", revision.analysis, variant="outline",
                 color_scheme=rx.cond(revision.findings.length() > 0, "orange", "gray"),
                 class_name="findings-count", data_key=revision.key),
    )


def shown_findings(revision: RowVar[RevisionRow]) -> rx.Component:
    return rx.cond(
        is_shown(revision),
        rx.vstack(rx.foreach(revision.findings, lambda f: finding_item(f, revision.key)),
                  spacing="1", width="100%"),
    )


def findings_panel() -> rx.Component:
    return rx.vstack(
        rx.hstack(rx.icon("shield-alert", size=14),
                  rx.text("Static analysis (bandit, ruff)", size="1", weight="medium"),
                  rx.foreach(Feed.revisions, file_count), wrap="wrap", align="center", spacing="2"),
        rx.foreach(Feed.revisions, shown_findings),
        spacing="1", width="100%", id="findings",
    )


def findings_flag_badge(flag: Var, not_analysed: Var) -> rx.Component:
    """The queue's findings flag; red with its reason when the code could not be analysed."""
    return rx.cond(flag != "", rx.badge(rx.icon("shield-alert", size=12), flag,
                                        color_scheme=rx.cond(not_analysed, "red", "orange"),
                                        white_space="normal", data_not_analysed=not_analysed,
                                        class_name="findings-flag"))
