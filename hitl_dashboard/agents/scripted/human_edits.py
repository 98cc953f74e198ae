"""The scripted coder starts from the reviewer's version: the edits a resuming message reports
(domain/edits.py, unified diffs) are applied to its last files, in the order they were made."""

from __future__ import annotations

from hitl_dashboard.domain.edits import apply_diff, normalized_file, split_edits

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
