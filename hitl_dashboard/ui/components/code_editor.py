"""A code editor for the reviewer's own version (approve with my changes): CodeMirror 6 through
@uiw/react-codemirror, bundled by the app's frontend build (nothing loaded at run time). Its basic
setup brings line numbers, syntax highlighting and search (Ctrl-F / Cmd-F).

The text stays in the browser while the reviewer types: each change is kept in
`window.hitlEdits[<file key>]` (no event per keystroke), and "Approve with my changes" sends
those texts once (ui/states/edit_review.py). The editor shows text as text: nothing in it is HTML."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex.utils.imports import ImportVar
from reflex.vars.base import Var, VarData

# Exact versions: @uiw/react-codemirror's peers are pinned so one copy of @codemirror/state and
# @codemirror/view is bundled (two copies break CodeMirror's extension checks).
CODEMIRROR = "@uiw/react-codemirror@4.25.12"
PEERS = ["@codemirror/state@6.7.6", "@codemirror/view@6.44.2", "codemirror@6.0.2",
         "@codemirror/theme-one-dark@6.1.3", "@babel/runtime@7.29.17"]
LANGUAGES = {  # language name of a revision -> (package, export)
    "python": ("@codemirror/lang-python@6.2.1", "python"),
    "javascript": ("@codemirror/lang-javascript@6.2.5", "javascript"),
    "markdown": ("@codemirror/lang-markdown@6.5.2", "markdown"),
    "json": ("@codemirror/lang-json@6.0.2", "json"),
}
ALIASES = {"py": "python", "js": "javascript", "ts": "javascript", "typescript": "javascript", "md": "markdown"}

# Keeps the text of the file the editor's wrapper names (data-edit-key) where the approve button's
# script reads it: no server round trip while typing.
KEEP_TEXT: Var[Any] = Var(_js_expr=(
    "((value, update) => { const box = update.view.dom.closest('[data-edit-key]');"
    " if (box) { window.hitlEdits = window.hitlEdits || {}; window.hitlEdits[box.dataset.editKey] = value; } })"
))
# What the approve button sends: the texts the reviewer changed, by file key ({} when none).
EDITED_TEXTS = "JSON.stringify(window.hitlEdits || {})"
FORGET_EDITS = "window.hitlEdits = {}"


# On a phone (the app's 768 px breakpoint) long lines wrap: a code line wider than the screen would
# leave its end (and the editor's own scrollbar) out of a thumb's reach. Wider screens keep lines whole.
PHONE_WRAP = ("((typeof window !== 'undefined' && window.matchMedia('(max-width: 767.98px)').matches)"
              " ? [cm_EditorView.lineWrapping] : [])")


def language_extensions(language: Var[str]) -> Var[list[Any]]:
    """The CodeMirror language extension for a revision's language (none for others: plain text),
    and line wrapping on a phone."""
    # Aliased: a bare `json` or `python` could meet another name in the page's module.
    imports = {package: [ImportVar(tag=name, alias=f"cm_{name}")] for package, name in LANGUAGES.values()}
    imports["@codemirror/view@6.44.2"] = [ImportVar(tag="EditorView", alias="cm_EditorView")]
    table = ", ".join(f"{lang}: () => [cm_{name}()]" for lang, (_, name) in LANGUAGES.items())
    aliases = ", ".join(f"{alias}: {target!r}" for alias, target in ALIASES.items())
    expr = (f"((lang) => {{ const made = {{{table}}}; const aliases = {{{aliases}}};"
            f" const pick = made[aliases[lang] || lang]; return [...(pick ? pick() : []), ...{PHONE_WRAP}]; }})"
            f"({language})")
    return Var(_js_expr=expr, _var_type=list, _var_data=VarData.merge(VarData(imports=imports),
                                                                        language._get_all_var_data()))


class CodeEditor(rx.NoSSRComponent):
    library = CODEMIRROR
    lib_dependencies: list[str] = PEERS + [package for package, _ in LANGUAGES.values()]
    tag = "CodeMirror"
    is_default = True

    value: rx.Var[str]
    height: rx.Var[str]
    max_height: rx.Var[str]
    extensions: rx.Var[list[Any]]
    basic_setup: rx.Var[dict]
    editable: rx.Var[bool]
    # (value, viewUpdate) => ...: a JS function, not a server event (see KEEP_TEXT).
    on_change: rx.Var[Any]


def code_editor(key: Var[str], text: Var[str], language: Var[str], **props) -> rx.Component:
    """The editor of one file, in a box that names the file for KEEP_TEXT."""
    return rx.box(
        CodeEditor.create(value=text, extensions=language_extensions(language), on_change=KEEP_TEXT,
                          basic_setup={"lineNumbers": True, "foldGutter": True, "highlightActiveLine": True,
                                       "searchKeymap": True},
                          max_height="60vh", **props),
        data_edit_key=key, width="100%", class_name="code-editor",
        border=f"1px solid {rx.color('gray', 6)}", border_radius="var(--radius-2)", overflow="hidden",
    )
