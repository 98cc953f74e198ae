"""The scripted coder's next revision: every reviewer instruction since its last draft, applied.

Suggested changes (exact lines, domain/suggestions.py) are put in place as written, before anything
else, since their line numbers are those of the reviewed draft. The rest of each instruction (free text
and line comments) goes through the recognised edits of revise.py. Each change is said in one phrase,
so the coder's message tells the reviewer what it did and what it could not do.
"""

from __future__ import annotations

from hitl_dashboard.domain.revise_message import LINE_COMMENTS_HEADING, SUGGESTION_RULE
from hitl_dashboard.domain.suggestions import (
    SuggestedChange,
    apply_suggestions,
    parse_suggestions,
    without_suggestions,
)

from .code import CodeFile
from .revise import annotate_lines, apply_renames, line_notes, renames, revise_code


def revise_files(files: list[CodeFile], instructions: list[str]) -> tuple[list[CodeFile], list[str]]:
    """(the new files, what was done). files[0] is the main module: free-text instructions are about it;
    the other files get renames, their own line comments and their own suggestions."""
    changes: list[str] = []
    for instruction in instructions:
        files, done = _suggested(files, parse_suggestions(instruction))
        changes += done
        rest = without_suggestions(instruction).replace(SUGGESTION_RULE, "")
        if not rest.replace(LINE_COMMENTS_HEADING, "").strip():
            continue  # nothing but suggestions
        main = files[0]
        code, done = revise_code(main.code, rest, main.path)
        changes += done
        pairs = renames(rest)
        others = [CodeFile(f.path, annotate_lines(apply_renames(f.code, pairs),
                                                  line_notes(rest, f.path, named_only=True)), f.language)
                  for f in files[1:]]
        files = [CodeFile(main.path, code, main.language), *others]
    return files, changes


def _suggested(files: list[CodeFile], suggestions: list[SuggestedChange]) -> tuple[list[CodeFile], list[str]]:
    done: list[str] = []
    paths = {f.path for f in files}
    for missing in [s for s in suggestions if s.key not in paths]:
        done.append(f"could not apply the suggestion for {missing.key} {missing.span}: there is no such file")
    revised = []
    for file in files:
        mine = [s for s in suggestions if s.key == file.path]
        code, skipped = apply_suggestions(file.code, mine)
        done += [f"applied the suggested change to {file.path} {s.span} exactly as written"
                 for s in sorted(mine, key=lambda s: s.first) if s not in skipped]
        done += [f"could not apply the suggestion for {file.path} {s.span}: those lines are not in the file "
                 "or overlap another suggestion" for s in skipped]
        revised.append(CodeFile(file.path, code, file.language))
    return revised, done
