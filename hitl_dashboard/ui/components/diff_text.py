"""Both sides of a file's diff, rebuilt in the browser from the parts the page receives (issue 44:
ui/views/diff_parts.py), and the fold control that reads a folded run's lines when expanded.

Each side is the whole file, line for line: a changed or context line is its own text, a folded
line a placeholder (or its real text once read). So the viewer numbers every line as the file does
(a clicked line number, a finding's gutter icon, a suggestion's line are the file's own), and it
folds exactly the placeholders: hunks carry CONTEXT lines around each change, the viewer shows as
many (its extraLinesSurroundingDiff default). One viewer per file: react-diff-viewer 4.0.5's
linesOffset shifts both sides by the same amount, so a viewer per hunk would number the old side
wrongly after any added or removed line.

The placeholder is a character no code line is made of, so the viewer's diff never pairs one with a
real line. Texts reach the viewer as props, rendered by React as text: nothing here is markup."""

from __future__ import annotations

from reflex.event import EventChain
from reflex.vars.base import Var

from hitl_dashboard.ui.states.diff_folds import DiffFoldsState

PLACEHOLDER = "\u22ef"  # "⋯"


def side_text(parts: Var, revision_id: Var, side: str) -> Var:
    """The `side` ("old" or "new") text of the diff whose parts are `parts`, with the lines of
    revision `revision_id` this tab has read into its folds."""
    assert side in ("old", "new")
    loaded: Var = DiffFoldsState.unfolded
    code = (
        "(((parts, id, loaded) => (parts ?? []).map((p) => {"
        f" if (p.kind === 'same') return p.old; if (p.kind !== 'fold') return p.{side};"
        f" const lines = Array(p.size).fill({PLACEHOLDER!r});"
        " for (const u of (loaded ?? [])) { if (u.revision_id !== id) continue;"
        " const end = Math.min(p.at + p.size, u.start + u.lines.length);"
        " for (let n = Math.max(p.at, u.start); n < end; n++) lines[n - p.at] = u.lines[n - u.start]; }"
        " return lines.join('\\n') + '\\n'; }).join(''))"
        f"({parts}, {revision_id}, {loaded}))"
    )
    return Var(_js_expr=code, _var_type=str, _var_data=Var.create([parts, revision_id, loaded])._get_all_var_data())


def fold_message(parts: Var, revision_id: Var) -> Var:
    """(lines, leftEnd, rightEnd) => the fold's label; a click on it (the viewer then unfolds the
    block) reads the block's lines when some of them are placeholders. The viewer passes the
    block's last line numbers."""
    expand = Var.create(EventChain(events=[DiffFoldsState.expand(
        revision_id, Var(_js_expr="(right - lines + 1)", _var_type=int), Var(_js_expr="lines", _var_type=int),
    )], args_spec=lambda: []))
    folded = (f"({parts} ?? []).some((p) => p.kind === 'fold' && p.at <= right && p.at + p.size > right - lines)")
    code = (
        "((lines, left, right) => jsx('span', {className: 'diff-fold-message',"
        f" onClick: () => {{ if ({folded}) ({expand})(); }}}},"
        " `Expand ${lines} ${lines === 1 ? 'line' : 'lines'} ...`))"
    )
    return Var(_js_expr=code, _var_data=Var.create([parts, revision_id, expand])._get_all_var_data())
