"""Side-by-side diff with react-diff-viewer-continued (renders offline, word-level highlights).
Its text props are rendered as text by React: agent output cannot inject markup here."""

from __future__ import annotations

import reflex as rx
from reflex.utils.imports import ImportVar
from reflex.vars.base import Var, VarData

# jsdiff's word mode that keeps whitespace as tokens: a changed word is highlighted whole (the
# library's default, per character, marks scattered letters), and both sides show their own exact
# text, indentation included (plain "diffWords" treats whitespace runs as equal and may show one
# side's spacing on the other).
WORD_DIFF = "diffWordsWithSpace"

# Overrides of the library's emotion styles (merged by class name, so ours win):
# - the table has a 1000 px minimum width, wider than the panel: the new side was cut off;
# - lines wrap anywhere by default, which breaks a code line mid-word and loses its indentation:
#   a long line keeps its layout and its half scrolls sideways instead, with one scrollbar per half
#   under it (assets/diff_scroll.js moves every line of the half together), or wraps on request
#   (the "Wrap lines" toggle, assets/app.css);
# - every word piece is an inline-flex box with padding: plain inline text keeps code aligned;
# - a line that is only added or removed (every line of a new file) is its own <ins> or <del>, inline
#   by default: a block, like a changed line's <div>, so that it has a width to measure and its
#   half's shift (a transform, which an inline box ignores) moves it.
DIFF_STYLES = {
    "diffContainer": {"minWidth": "0", "width": "100%"},
    "content": {"overflowX": "hidden"},
    "contentText": {"display": "block", "whiteSpace": "pre", "lineBreak": "auto", "wordBreak": "normal"},
    "wordDiff": {"display": "inline", "padding": "0", "wordBreak": "normal"},
    "titleBlock": {"textOverflow": "ellipsis", "whiteSpace": "nowrap"},
}

# The library's own fold text is "Expand {n} lines ..." whatever n is: "Expand 1 line ..." for one.
FOLD_MESSAGE: Var[object] = Var(_js_expr="((lines) => jsx('span', {className: 'diff-fold-message'},"
                                       " `Expand ${lines} ${lines === 1 ? 'line' : 'lines'} ...`))")


class DiffViewer(rx.NoSSRComponent):
    library = "react-diff-viewer-continued@4.0.5"
    tag = "ReactDiffViewer"
    is_default = True

    old_value: rx.Var[str]
    new_value: rx.Var[str]
    split_view: rx.Var[bool]
    left_title: rx.Var[str]
    right_title: rx.Var[str]
    use_dark_theme: rx.Var[bool]
    highlight_lines: rx.Var[list[str]]
    compare_method: rx.Var[str]
    styles: rx.Var[dict]
    # (data) => a <td> beside each line (ui/components/findings.py draws findings there).
    render_gutter: rx.Var[object]
    # "L-12" or "R-12": which side and line the reviewer clicked.
    # Reflex reads an event's arguments from a function in the subscript: no type a checker knows.
    on_line_number_click: rx.EventHandler[lambda line_id, _event=None: [line_id]]  # type: ignore[type-arg, valid-type]
    # (lines, leftStart, rightStart) => what a folded block of unchanged lines says.
    code_fold_message_renderer: rx.Var[object]

    @classmethod
    def create(cls, *children, **props) -> DiffViewer:
        props.setdefault("compare_method", WORD_DIFF)
        props.setdefault("code_fold_message_renderer", FOLD_MESSAGE)
        props.setdefault("styles", DIFF_STYLES)
        return super().create(*children, **props)


diff_viewer = DiffViewer.create

# Below 768 px (the page's own breakpoint, assets/app.css), as a React value that follows the window:
# a phone has no room for two halves of code, so the diff shows one column there.
PHONE_QUERY = "(max-width: 767.98px)"
_NARROW_HOOK = (
    "const hitlNarrowViewport = useSyncExternalStore(useCallback((changed) => {"
    f" const query = window.matchMedia({PHONE_QUERY!r}); query.addEventListener('change', changed);"
    " return () => query.removeEventListener('change', changed); }, []),"
    f" () => window.matchMedia({PHONE_QUERY!r}).matches, () => false)"
)
narrow_viewport: Var[bool] = Var(
    _js_expr="hitlNarrowViewport", _var_type=bool,
    _var_data=VarData(imports={"react": [ImportVar(tag="useSyncExternalStore"), ImportVar(tag="useCallback")]},
                      hooks={_NARROW_HOOK: None}),
)
