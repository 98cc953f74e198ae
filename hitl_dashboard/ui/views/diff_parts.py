"""A file's diff as the page receives it (issue 44): its hunks' lines and the sizes of the folded
runs between them (domain/diff_hunks.py), never both whole texts. The browser rebuilds each side
from these parts, a folded line as a placeholder until the reviewer expands it
(ui/components/diff_file.py; the lines come from ui/states/diff_folds.py).

A small file is sent whole (as one part): the viewer folds its unchanged lines itself, and
expanding them needs no round trip."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass

from hitl_dashboard.domain.diff_hunks import CONTEXT, Gap, file_diff, split_lines

SMALL_FILE_LINES = 400


@dataclass
class DiffPart:
    """kind "same": unchanged lines (their text in `old`); "edit": changed lines, each side's own;
    "fold": `size` unchanged lines left out, from line `at` of the new side. Texts end each line
    with "\\n", so "" is no line and "\\n" one empty line; a side is its parts' texts in order."""

    kind: str = "same"
    at: int = 0
    size: int = 0
    old: str = ""
    new: str = ""


def _joined(lines) -> str:
    return "".join(line + "\n" for line in lines)


def diff_parts(old: str, new: str) -> list[DiffPart]:
    small = max(len(split_lines(old)), len(split_lines(new))) <= SMALL_FILE_LINES
    parts: list[DiffPart] = []
    for part in file_diff(old, new, context=SMALL_FILE_LINES if small else CONTEXT).parts:
        if isinstance(part, Gap):
            if small:  # identical small texts: whole, as the viewer folds them itself
                text = _joined(split_lines(new))
                parts.append(DiffPart("same", old=text))
            else:
                parts.append(DiffPart("fold", at=part.new_start, size=part.size))
            continue
        for run in part.runs:
            if run.equal:
                parts.append(DiffPart("same", old=_joined(run.old)))
            else:
                parts.append(DiffPart("edit", old=_joined(run.old), new=_joined(run.new)))
    return parts


# A pair's parts are computed once, not at every refresh of the conversation's feed (one per agent
# message): by a digest of the two texts (a fraction of a millisecond for a 3,000-line file, against
# 50-200 ms for the diff), not by the stored hashes, whose form belongs to the review rules.
_CACHE: OrderedDict[tuple[bytes, bytes], list[DiffPart]] = OrderedDict()
_CACHE_SIZE = 256
_CACHE_LOCK = threading.Lock()  # views are read in worker threads (asyncio.to_thread)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def cached_diff_parts(old: str, new: str) -> list[DiffPart]:
    key = (_digest(old), _digest(new))
    with _CACHE_LOCK:
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return list(_CACHE[key])
    parts = diff_parts(old, new)  # outside the lock: two threads may compute one pair, both alike
    with _CACHE_LOCK:
        _CACHE[key] = parts
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return list(parts)
