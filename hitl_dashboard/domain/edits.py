"""A reviewer's own version of what is under review ("approve with my changes"): its limits, the
unified diff of what the person changed, and the message that tells the agents. The dashboard
writes that message (services/reviews/edits.py) and the offline scripted model reads it back
(agents/scripted/); both live here so the format cannot change under its parser.

    EDITED by alice (security_reviewer): continue from the reviewer's version, not your own.
    Exactly what changed:
    ```diff
    --- app/client.py r1
    +++ app/client.py r2 (alice)
    @@ -1,2 +1,2 @@
    ...
    ```
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from hitl_dashboard.domain.stored_values import storable_text

# The limits of what may be reviewed in the first place: a file as large as an external approval
# request may propose (domain/external.MAX_CONTENT), a message as large as a fork's edited message.
MAX_EDITED_FILE_CHARS = 200_000
MAX_EDITED_MESSAGE_CHARS = 100_000
MAX_EDITED_FILES = 100  # a code review covers at most this many files (services/audit/audit_context)
MESSAGE_KEY = "message"  # the one "file" of a message under review, in diffs and the editor

EDITS_HEADING = "EDITED by"
_DIFF_BLOCK = re.compile(r"^```diff\n(.*?)^```[ \t]*$", re.M | re.S)
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Change:
    """One file (or the message) a reviewer changed, as a unified diff from the agent's version."""

    key: str
    diff: str


def normalized_file(text: str) -> str:
    """A file as revisions are stored (domain/revisions): Unix line ends, exactly one final newline."""
    return storable_text(text).replace("\r\n", "\n").rstrip("\n") + "\n"


def normalized_message(text: str) -> str:
    return storable_text(text).replace("\r\n", "\n").strip()


def unified_diff(before: str, after: str, from_label: str, to_label: str) -> str:
    lines = difflib.unified_diff(before.splitlines(keepends=True), after.splitlines(keepends=True),
                                 fromfile=from_label, tofile=to_label)
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


def edits_message(reviewer: str, role: str, changes: list[Change]) -> str:
    """What the agents are told before the decision itself: every diff, one fenced block each (a diff
    line never starts with a backtick, so no content can close the fence)."""
    blocks = "\n".join(f"```diff\n{c.diff}```" for c in changes)
    return (f"{EDITS_HEADING} {reviewer} ({role}): continue from the reviewer's version, not your own.\n"
            f"Exactly what changed:\n{blocks}")


def edits_section(text: str) -> str | None:
    """The edits a transcript note reports (from its heading line to its last diff), else None."""
    start = text.find("\n" + EDITS_HEADING)
    if start < 0:
        return None
    blocks = list(_DIFF_BLOCK.finditer(text, start))
    return text[start + 1:blocks[-1].end()] if blocks else None


def split_edits(text: str) -> tuple[str, list[Change]]:
    """(the rest of a message, the changes it reports, oldest first): a message that resumes the
    agents starts with the edits, then says the decision."""
    if not text.startswith(EDITS_HEADING):
        return text, []
    blocks = list(_DIFF_BLOCK.finditer(text))
    if not blocks:
        return text, []
    changes = [Change(_key_of(m.group(1)), m.group(1)) for m in blocks]
    return text[blocks[-1].end():].strip(), [c for c in changes if c.key]


def _key_of(diff: str) -> str:
    for line in diff.splitlines()[:2]:
        if line.startswith("+++ "):
            return line[4:].split()[0] if line[4:].split() else ""
    return ""


def apply_diff(original: str, diff: str) -> str | None:
    """`original` with the unified diff applied, or None when it does not fit (another version)."""
    source = original.splitlines(keepends=True)
    lines = diff.splitlines(keepends=True)
    out: list[str] = []
    pos, i, last_tag = 0, 0, ""
    while i < len(lines) and not lines[i].startswith("@@"):
        i += 1
    while i < len(lines):
        hunk = _HUNK.match(lines[i])
        if hunk is None:
            return None
        start = int(hunk.group(1)) - (0 if hunk.group(2) == "0" else 1)
        if start < pos:
            return None
        out += source[pos:start]
        pos, i = start, i + 1
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, body = lines[i][:1], lines[i][1:]
            i += 1
            if tag == "\\":  # "\ No newline at end of file": the line before it ends without one
                if last_tag != "-" and out and out[-1].endswith("\n"):
                    out[-1] = out[-1][:-1]
                continue
            last_tag = tag
            if tag in (" ", "-"):
                if pos >= len(source) or source[pos].rstrip("\n") != body.rstrip("\n"):
                    return None
                if tag == " ":
                    out.append(source[pos])
                pos += 1
            elif tag == "+":
                out.append(body if body.endswith("\n") else body + "\n")
            else:
                return None
    return "".join(out + source[pos:])
