"""Team checkpoints kept turn by turn, as plain JSON.

A conversation's team state is the AutoGen save_state() document. Rather than rewrite it whole
after every agent turn (its size, and so the cost of writing it, grows with the conversation),
each turn stores what it changed:

    {"lists":  [[path, keep, items], ...],   # the list at `path` keeps its first `keep` items,
                                             # then `items` follow (append-only lists: keep = old
                                             # length; a cleared buffer: keep = 0)
     "values": [[path, value], ...]}         # small fields set whole (turn counter, last speaker)

A path is the list of keys from the top of the document. The state at turn N is the last full
document at or before N with the deltas after it applied in turn order.

The text of a message already stored as a transcript row is not stored again: a `content` that
equals a row's text becomes {"$message": the row's seq in the conversation}, put back when the
state is rebuilt."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

FULL, DELTA = "full", "delta"
MESSAGE_REF = "$message"


class CheckpointError(ValueError):
    """Stored checkpoints that do not fit together (a delta with no full state before it, a path
    that does not exist): the state at that turn cannot be rebuilt."""


def apply_delta(state: dict[str, Any], delta: Mapping[str, Any]) -> dict[str, Any]:
    """Apply one turn's delta to `state` in place (and return it)."""
    for path, keep, items in delta.get("lists", ()):
        parent, key = _parent(state, path)
        current = parent.get(key)
        if not isinstance(current, list) or keep > len(current):
            raise CheckpointError(f"cannot keep {keep} items of {'/'.join(path)}")
        del current[keep:]
        current.extend(items)
    for path, value in delta.get("values", ()):
        parent, key = _parent(state, path)
        parent[key] = value
    return state


def rebuild(rows: Iterable[tuple[str, Mapping[str, Any]]], texts: Mapping[int, str]) -> dict[str, Any] | None:
    """The state after the last of `rows` ((kind, data) in turn order, from a full one on);
    `texts` maps the transcript rows the data refers to onto their text. None when there are none."""
    state: dict[str, Any] | None = None
    for kind, data in rows:
        if kind == FULL:
            state = copy.deepcopy(dict(data))
        elif state is None:
            raise CheckpointError("a turn's changes have no full checkpoint before them")
        else:
            apply_delta(state, copy.deepcopy(dict(data)))
    return None if state is None else expand_message_refs(state, texts)


def compact_message_refs(data: Any, ids_by_text: Mapping[str, int]) -> Any:
    """A copy of `data` where every `content` equal to a stored row's text refers to that row.
    (Runs on every agent turn: scalars are copied without a call.)"""
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            if isinstance(value, str):
                out[key] = {MESSAGE_REF: ids_by_text[value]} if key == "content" and value in ids_by_text else value
            elif isinstance(value, (dict, list)):
                out[key] = compact_message_refs(value, ids_by_text)
            else:
                out[key] = value
        return out
    if isinstance(data, list):
        return [compact_message_refs(v, ids_by_text) if isinstance(v, (dict, list)) else v for v in data]
    return data


def referenced_message_ids(data: Any) -> set[int]:
    found: set[int] = set()
    _collect_refs(data, found)
    return found


def expand_message_refs(data: Any, texts: Mapping[int, str]) -> Any:
    """Put the rows' text back in place of their references (in place; returns `data`)."""
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "content" and _is_ref(value):
                if value[MESSAGE_REF] not in texts:
                    raise CheckpointError(f"transcript message #{value[MESSAGE_REF]} is missing")
                data[key] = texts[value[MESSAGE_REF]]
            else:
                expand_message_refs(value, texts)
    elif isinstance(data, list):
        for value in data:
            expand_message_refs(value, texts)
    return data


def replace_content(state: Any, old: str, new: str) -> int:
    """Replace a message text everywhere in a state (the thread, buffers, model contexts), in place:
    an edited copy of a turn's message. Returns how many places changed."""
    changed = 0
    if isinstance(state, dict):
        for key, value in state.items():
            if key == "content" and value == old:
                state[key] = new
                changed += 1
            else:
                changed += replace_content(value, old, new)
    elif isinstance(state, list):
        for value in state:
            changed += replace_content(value, old, new)
    return changed


def _is_ref(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and MESSAGE_REF in value


def _collect_refs(data: Any, found: set[int]) -> None:
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "content" and _is_ref(value):
                found.add(int(value[MESSAGE_REF]))
            else:
                _collect_refs(value, found)
    elif isinstance(data, list):
        for value in data:
            _collect_refs(value, found)


def _parent(state: dict[str, Any], path: list[str]) -> tuple[dict[str, Any], str]:
    node: Any = state
    for key in path[:-1]:
        node = node.get(key) if isinstance(node, dict) else None
        if node is None:
            raise CheckpointError(f"no {'/'.join(path)} in the state")
    if not isinstance(node, dict) or not path:
        raise CheckpointError(f"no {'/'.join(path)} in the state")
    return node, path[-1]
