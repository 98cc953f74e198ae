"""Parsers for outside input (team files, request bodies, tool arguments and schemas) with bounds.

A hostile document must be refused with a message naming the bound it broke, never exhaust the
stack (deep nesting), memory or CPU (YAML aliases: "billion laughs"), and never mean two things
(a key given twice, a byte order mark, bytes that are not UTF-8). Every refusal is InvalidInput.
"""

from __future__ import annotations

import json
from typing import Any

import yaml

from hitl_dashboard.domain.errors import InvalidInput

MAX_DEPTH = 64  # lists and mappings inside each other; the built-in teams need 4
MAX_ALIASES = 100  # YAML alias uses (*name) in one file
MAX_NODES = 100_000  # values in a YAML file once its aliases are expanded
MAX_YAML_BYTES = 256 * 1024


class YamlInvalid(InvalidInput):
    """A team file refused at a place: line and column count from 1 (None: the file as a whole).
    The editor in the browser marks that place beside the text."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.line, self.column = line, column


def _at(mark: Any) -> tuple[int, int]:
    return mark.line + 1, mark.column + 1


def _refused(message: str, mark: Any) -> YamlInvalid:
    line, column = _at(mark)
    return YamlInvalid(f"{message} (line {line}, column {column})", line, column)


def load_json(data: bytes | str, what: str = "the body") -> Any:
    """Strict JSON: UTF-8 without a byte order mark, no key twice in an object, no NaN or Infinity,
    at most MAX_DEPTH levels deep."""
    text = _utf8(data, what) if isinstance(data, bytes) else data
    if text.startswith("\ufeff"):
        raise InvalidInput(f"{what} starts with a byte order mark: send UTF-8 without one")
    if "\x00" in text:  # never in valid JSON (it is escaped as \u0000); UTF-16 and UTF-32 are full of them
        raise InvalidInput(f"{what} holds NUL bytes, as UTF-16 or UTF-32 would: send UTF-8")
    try:
        value = json.loads(text, object_pairs_hook=lambda pairs: _unique_keys(pairs, what),
                           parse_constant=lambda name: _no_constant(name, what))
    except RecursionError:
        raise InvalidInput(f"{what} is nested more than {MAX_DEPTH} levels deep (the limit)") from None
    except ValueError as exc:  # JSONDecodeError, or an integer of more digits than Python converts
        raise InvalidInput(f"{what} is not valid JSON: {exc}") from None
    check_depth(value, what)
    return value


def check_depth(value: Any, what: str) -> None:
    """Refuse JSON-like data (dicts and lists) nested more than MAX_DEPTH levels deep."""
    stack = [(value, 1)]  # a loop, not recursion: the point is not to need a deep stack
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list | tuple) else None
        if children is None:
            continue
        if depth > MAX_DEPTH:
            raise InvalidInput(f"{what} is nested more than {MAX_DEPTH} levels deep (the limit)")
        stack.extend((child, depth + 1) for child in children)


def load_yaml(text: str, what: str = "the file") -> Any:
    """Safe YAML within MAX_YAML_BYTES, MAX_DEPTH, MAX_ALIASES and MAX_NODES, no key twice in a
    mapping. The bounds are checked on the composed node graph, before any value is built."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_YAML_BYTES:
        raise InvalidInput(f"{what} is larger than {MAX_YAML_BYTES // 1024} KiB (the limit)")
    try:
        loader = _BoundedLoader(text, what)  # already reads: a control character is refused here
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            _Expansion(what).measure(node, 1)
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, what) from None
    except yaml.reader.ReaderError as exc:  # a control character: its position is an offset
        line = text.count("\n", 0, exc.position) + 1
        column = exc.position - (text.rfind("\n", 0, exc.position) + 1) + 1
        character = exc.character if isinstance(exc.character, int) else ord(exc.character or "\0")
        raise YamlInvalid(f"{what} is not valid YAML at line {line}, column {column}: it holds the control "
                          f"character U+{character:04X}, which YAML does not allow", line, column) from None
    except yaml.YAMLError as exc:
        raise InvalidInput(f"{what} is not valid YAML: {exc}") from None
    except (ValueError, OverflowError) as exc:  # a date like 2024-13-45, an integer of 5,000 digits
        raise InvalidInput(f"{what} holds a value YAML cannot read: {exc}") from None


def _syntax_error(exc: yaml.MarkedYAMLError, what: str) -> InvalidInput:
    """The place of the problem itself, and what YAML was reading when it met it."""
    mark = exc.problem_mark or exc.context_mark
    if mark is None:
        return InvalidInput(f"{what} is not valid YAML: {exc}")
    line, column = _at(mark)
    message = f"{what} is not valid YAML at line {line}, column {column}: {exc.problem or exc.context}"
    if exc.problem and exc.context and exc.context_mark is not None:
        message += " ({} that starts at line {}, column {})".format(exc.context, *_at(exc.context_mark))
    return YamlInvalid(message, line, column)


def yaml_position(text: str, path: list[str]) -> tuple[int, int] | None:
    """Where a field of a YAML document is written: (line, column) of the deepest part of `path`
    the document has (a missing field: its parent). A list item is named by its index or by its
    `name` (agents.coder.model). None when the text cannot be read within the bounds."""
    try:
        loader = _BoundedLoader(text, "the file")
        try:
            node = loader.get_single_node()
        finally:
            loader.dispose()
    except (yaml.YAMLError, InvalidInput):
        return None
    if node is None:
        return None
    place = node.start_mark
    for part in path:
        found = _child(node, part)
        if found is None:
            break
        place, node = found
    return _at(place)


def _child(node: yaml.Node, part: str) -> tuple[Any, yaml.Node] | None:
    """(where the child is written, the child) of a mapping key or list item; None if absent."""
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == part:
                return key.start_mark, value
    elif isinstance(node, yaml.SequenceNode):
        items = node.value
        if part.isdigit() and int(part) < len(items):
            return items[int(part)].start_mark, items[int(part)]
        for item in items:
            named = _child(item, "name")
            if named is not None and isinstance(named[1], yaml.ScalarNode) and named[1].value == part:
                return item.start_mark, item
    return None


class _BoundedLoader(yaml.SafeLoader):
    """SafeLoader that refuses, while composing (the recursive step), too deep a nesting or too
    many aliases."""

    def __init__(self, text: str, what: str):
        super().__init__(text)
        self.what, self.depth, self.aliases = what, 0, 0

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            self.aliases += 1
            if self.aliases > MAX_ALIASES:
                raise _refused(f"{self.what} uses more than {MAX_ALIASES} aliases (the limit)",
                               self.peek_event().start_mark)
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _refused(f"{self.what} is nested more than {MAX_DEPTH} levels deep (the limit)",
                           self.peek_event().start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1


class _Expansion:
    """The size and depth a node graph has once aliases are expanded, each shared node measured
    once; an alias inside the node it names (a cycle) is refused."""

    def __init__(self, what: str):
        self.what = what
        self.measured: dict[int, tuple[int, int]] = {}  # id(node) -> (values, levels)
        self.open: set[int] = set()

    def measure(self, node: yaml.Node, depth: int) -> tuple[int, int]:
        if id(node) in self.open:
            raise _refused(f"{self.what} has an alias inside the value it names", node.start_mark)
        if id(node) not in self.measured:
            self.open.add(id(node))
            self.measured[id(node)] = self._children(node, depth)
            self.open.discard(id(node))
        values, levels = self.measured[id(node)]
        if depth - 1 + levels > MAX_DEPTH:
            raise _refused(f"{self.what} is nested more than {MAX_DEPTH} levels deep once its aliases "
                           f"are expanded (the limit)", node.start_mark)
        return values, levels

    def _children(self, node: yaml.Node, depth: int) -> tuple[int, int]:
        if isinstance(node, yaml.ScalarNode):
            return 1, 0
        if isinstance(node, yaml.MappingNode):
            _check_unique_keys(node, self.what)
            children = [part for pair in node.value for part in pair]
        else:
            children = node.value
        values, levels = 1, 1
        for child in children:
            child_values, child_levels = self.measure(child, depth + 1)
            values, levels = values + child_values, max(levels, child_levels + 1)
            if values > MAX_NODES:
                raise _refused(f"{self.what} holds more than {MAX_NODES:,} values once its aliases "
                               f"are expanded (the limit)", child.start_mark)
        return values, levels


def _check_unique_keys(node: yaml.MappingNode, what: str) -> None:
    seen: set[tuple[str, str]] = set()
    for key, _ in node.value:
        # "<<" merges another mapping in, and its keys may be overridden: that is its purpose.
        if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
            if (key.tag, key.value) in seen:
                raise _refused(f"{what} gives the key {_shown(key.value)} twice", key.start_mark)
            seen.add((key.tag, key.value))


def _utf8(data: bytes, what: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{what} is not UTF-8 (byte {exc.start} is not): send UTF-8 JSON") from None


def _unique_keys(pairs: list[tuple[str, Any]], what: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise InvalidInput(f"{what} gives the key {_shown(key)} twice in one object, so it could mean two things")
        found[key] = value
    return found


def _no_constant(name: str, what: str) -> Any:
    raise InvalidInput(f"{what} holds {name}, which JSON does not allow")


def _shown(key: str) -> str:
    return repr(key if len(key) <= 60 else key[:60] + "...")
