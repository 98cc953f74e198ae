"""The REVISE message: the text the agents receive when a reviewer asks for a revision, and its
parser. The dashboard writes it (services/reviews/decide.py) and the offline scripted model reads
it back (agents/scripted/); both live here so the format cannot change under its parser.

    REVISE @coder
    Instructions: add a timeout
    Line comments:
    - app/client.py line 3: handle the error
    - app/client.py lines 5-6 suggested change: close the file
    ```suggestion
        with open(path) as f:
            return f.read()
    ```
    A suggested change replaces the named lines with exactly the lines in its block.
    (from alice, security_reviewer)
"""

from __future__ import annotations

import re

from hitl_dashboard.domain.decisions import LineComment, render_line_comments

INSTRUCTIONS_LABEL = "Instructions:"
LINE_COMMENTS_HEADING = "Line comments:"
SUGGESTION_RULE = "A suggested change replaces the named lines with exactly the lines in its block."
_SIGNATURE = re.compile(r"\s*\(from [^()\n]*\)\s*$")
# Also what a person or another model types by hand: "REVISE @coder: add a timeout".
_TYPED_REVISE = re.compile(r"REVISE\b[\s:,-]*((?:@\w+[\s,]*)*)[:\s-]*(.*)", re.S | re.I)


def revise_message(*, target: str, instructions: str | None, line_comments: tuple[LineComment, ...],
                   reviewer: str, role: str) -> str:
    parts = [f"REVISE @{target}"]
    if instructions:
        parts.append(f"{INSTRUCTIONS_LABEL} {instructions.strip()}")
    if line_comments:
        parts.append(f"{LINE_COMMENTS_HEADING}\n" + render_line_comments(line_comments))
        if any(c.suggestion is not None for c in line_comments):
            parts.append(SUGGESTION_RULE)
    parts.append(f"(from {reviewer}, {role})")
    return "\n".join(parts)


def reviewer_instruction(text: str) -> str | None:
    """The instruction in a reviewer message (everything after "Instructions:", line comments
    included, or after a typed "REVISE @agent:"), else None. The signature line is left out."""
    stripped = _SIGNATURE.sub("", text.strip())
    if INSTRUCTIONS_LABEL in stripped:
        return stripped.split(INSTRUCTIONS_LABEL, 1)[1].strip() or None
    match = _TYPED_REVISE.match(stripped)
    if match and stripped.upper().startswith("REVISE"):
        return match.group(2).strip() or "revise"
    return None
