"""Side-by-side diff with react-diff-viewer-continued (renders offline, word-level highlights).
Its text props are rendered as text by React: agent output cannot inject markup here."""

from __future__ import annotations

import reflex as rx


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
    # (data) => a <td> beside each line (ui/components/findings.py draws findings there).
    render_gutter: rx.Var[object]
    # "L-12" or "R-12": which side and line the reviewer clicked.
    on_line_number_click: rx.EventHandler[lambda line_id, _event=None: [line_id]]


diff_viewer = DiffViewer.create
