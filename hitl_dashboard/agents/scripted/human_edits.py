"""The scripted agents start from the reviewer's version: the edits a resuming message reports
(domain/edits.py, unified diffs) are applied to the coder's last files, or to the planner's or
copywriter's last message, in the order they were made."""

from __future__ import annotations

from hitl_dashboard.domain.edits import MESSAGE_KEY, apply_diff, normalized_file, normalized_message, split_edits

from .code import CodeFile


def with_human_edits(files: list[CodeFile], texts: list[str]) -> tuple[list[CodeFile], list[str]]:
    """The files with every edit in `texts` applied, and the paths that changed. An edit that does
    not fit the file (made to another version) is left out, so the file stays whole."""
    files, changed = list(files), []
    for text in texts:
        for change in split_edits(text)[1]:
            for index, file in enumerate(files):
                applied = apply_diff(normalized_file(file.code), change.diff) if file.path == change.key else None
                if applied is not None:
                    files[index] = CodeFile(file.path, applied, file.language)
                    changed.append(file.path)
    return files, changed


def with_message_edits(message: str, texts: list[str]) -> tuple[str, bool]:
    """The agent's last message with every edit of it in `texts` applied (diffs of the message as it
    was stored, services/reviews/edits.py), and whether any was. An edit that does not fit is left out."""
    current, edited = normalized_message(message) + "\n", False
    for text in texts:
        for change in split_edits(text)[1]:
            applied = apply_diff(current, change.diff) if change.key == MESSAGE_KEY else None
            if applied is not None:
                current, edited = applied, True
    return current.rstrip("\n"), edited
