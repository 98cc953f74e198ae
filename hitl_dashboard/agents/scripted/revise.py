"""Reviewer-driven revisions of the scripted coder's code: each recognised instruction is a real edit.

Pure text and ``ast`` (to find functions and rewrite their signatures), no autogen. Every edit returns
the new code, or None when it does not apply, so the caller can fall back to a visible review note.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from hitl_dashboard.domain.revise_message import LINE_COMMENTS_HEADING
from hitl_dashboard.domain.text_cuts import cut_visibly

from .pysource import (
    add_import,
    after_imports,
    body_start,
    defaults_by_name,
    functions,
    insert,
    main_function,
    named_params,
    with_signature,
)

Edit = Callable[[str], "str | None"]
_LINE_NOTE = re.compile(r"\bline\s+(\d+)\s*:\s*([^\n;]+)", re.I)
_NAME_BEFORE = re.compile(r"(\S+)\s+\Z")


def line_notes(instruction: str, path: str, *, named_only: bool = False) -> list[tuple[int, str]]:
    """``line 12: text`` comments for ``path``; ``- app/x.py line 12: text`` (the dashboard's form) names a file.
    Unnamed comments belong to the main module, so other files ask for ``named_only``."""
    # The file named before "line N:" is looked for in the few characters before each match: one
    # pattern with an optional name in front made a long run of text with no space in it (20,000
    # characters of instructions) quadratic, seconds of CPU.
    found = []
    for match in _LINE_NOTE.finditer(instruction):
        before = _NAME_BEFORE.search(instruction[max(0, match.start() - 300):match.start()])
        found.append((before.group(1) if before else "", match.group(1), match.group(2)))
    return [(int(n), text.strip()) for key, n, text in found
            if key == path or (not named_only and not _names_a_file(key))]


def _names_a_file(key: str) -> bool:
    return "/" in key or "." in key.rstrip(".:")


def annotate_lines(code: str, notes: list[tuple[int, str]]) -> str:
    """A ``# Review (line N): ...`` comment above each commented line, bottom-up so numbers stay valid."""
    for number, note in sorted(notes, key=lambda n: -n[0]):
        code = _note_at_line(code, number, note)
    return code


def revise_code(code: str, instruction: str, path: str = "") -> tuple[str, list[str]]:
    """Apply ``instruction`` to ``code``; returns the new code and what was done, one phrase per change."""
    done: list[str] = []
    lowered = instruction.lower()
    notes = line_notes(instruction, path)
    code = annotate_lines(code, notes)
    done += [f"noted the comment on line {number}" for number, _ in notes]
    for old, new in renames(instruction):
        renamed = apply_renames(code, [(old, new)])
        if renamed != code:
            code = renamed
            done.append(f"renamed {old} to {new}")
    for keyword, edit, phrase in _KEYWORD_EDITS:
        if re.search(keyword, lowered):
            changed = edit(code)
            if changed is not None and changed != code:
                code = changed
                done.append(phrase)
    if not done:
        code = _review_note(code, instruction)
        said = cut_visibly(" ".join(_general_words(instruction).split()), 80)
        done.append(f'found no code change I know how to make in "{said}": added it as a review note at the top '
                    "and bumped the revision marker")
    return code, done


def renames(instruction: str) -> list[tuple[str, str]]:
    """("old", "new") pairs from "rename old to new" (also "->" and backticks)."""
    return re.findall(r"rename\s+`?([A-Za-z_]\w*)`?\s+(?:to|->|as)\s+`?([A-Za-z_]\w*)`?", instruction, re.I)


def apply_renames(code: str, pairs: list[tuple[str, str]]) -> str:
    """Whole-word renames; used on every file so the tests keep matching the module."""
    for old, new in pairs:
        code = re.sub(rf"\b{re.escape(old)}\b", new, code)
    return code


# -- the edits -----------------------------------------------------------------------------------------
def _add_timeout(code: str) -> str | None:
    fn = main_function(code)
    if fn is None or any(a.arg == "timeout" for a in named_params(fn)):
        return None
    typed = any(a.annotation is not None for a in named_params(fn))
    new_arg = ast.arg("timeout", ast.Name("float") if typed else None)
    default = ast.Name("DEFAULT_TIMEOUT_S")
    if fn.args.vararg is not None:
        fn.args.kwonlyargs.append(new_arg)
        fn.args.kw_defaults.append(default)
    else:
        fn.args.args.append(new_arg)
        fn.args.defaults.append(default)
    code = with_signature(code, fn)
    fn = main_function(code)
    assert fn is not None
    index, indent = body_start(fn)
    loop = next((n for n in fn.body if isinstance(n, (ast.For, ast.While))), None)
    if "urlopen(request)" in code:
        code = code.replace("urlopen(request)", "urlopen(request, timeout=timeout)")
    elif loop is not None:  # bound the whole loop, not just one step
        step_indent = " " * loop.body[0].col_offset
        code = insert(code, loop.body[0].lineno - 1, [
            f"{step_indent}if time.monotonic() > deadline:",
            f'{step_indent}    raise TimeoutError(f"{fn.name} gave up after {{timeout}} s")',
        ])
        code = insert(code, index, [f"{indent}deadline = time.monotonic() + timeout"])
        code = add_import(code, "import time")
    else:
        check = [f"{indent}if timeout <= 0:", f'{indent}    raise ValueError("timeout must be positive")']
        code = insert(code, index, check)
    return insert(code, after_imports(code), ["", "DEFAULT_TIMEOUT_S = 10.0"])


def _add_logging(code: str) -> str | None:
    if "logging.getLogger" in code:
        return None
    for fn in sorted(functions(code), key=lambda f: -f.lineno):
        params = named_params(fn)
        index, indent = body_start(fn)
        arg = f", {params[0].arg}" if params else ""
        code = insert(code, index, [f'{indent}logger.debug("{fn.name}(%r)"{arg})' if arg
                                     else f'{indent}logger.debug("{fn.name}()")'])
    warn = r'\1except \2 as \3:\n\1    logger.warning("attempt failed: %s", \3)'
    code = re.sub(r"^(\s*)except (.+) as (\w+):$", warn, code, flags=re.M)
    code = add_import(code, "import logging")
    return insert(code, after_imports(code), ["", "logger = logging.getLogger(__name__)"])


_TYPE_BY_NAME = [
    (r"^retry_on$", "tuple[type[BaseException], ...]"),
    (r"^salt$", "bytes | None"),
    (r"^params$", "dict[str, str] | None"),
    (r"^cache$", "TTLCache"),
    (r"^bucket$", "TokenBucket"),
    (r"(^|_)(func|loader|callback|fn)$", "Callable[..., Any]"),
    (r"(^|_)(attempt|attempts|count|cost|burst|limit|size|n)$", "int"),
    (r"(^|_)(delay|timeout|ttl|rate|seconds|s)$", "float"),
    (r"(^|_)(path|url|name|text|key|password|email|stored|delimiter|query)$", "str"),
    (r"(^|_)(items|rows|values)$", "Iterable[Any]"),
]


def _guess_type(name: str) -> str:
    return next((t for pattern, t in _TYPE_BY_NAME if re.search(pattern, name)), "Any")


def _add_type_hints(code: str) -> str | None:
    changed = False
    for fn in sorted(functions(code), key=lambda f: -f.lineno):
        fn = next(f for f in functions(code) if f.lineno == fn.lineno)
        for arg in named_params(fn):
            if arg.annotation is None:
                arg.annotation, changed = ast.Name(_guess_type(arg.arg)), True
        for star in (fn.args.vararg, fn.args.kwarg):
            if star is not None and star.annotation is None:
                star.annotation, changed = ast.Name("Any"), True
        if fn.returns is None:
            returns_value = any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(fn))
            fn.returns = ast.Name(_guess_type(fn.name) if returns_value else "None")
            if fn.name.startswith(("is_", "has_", "allow", "verify")):
                fn.returns = ast.Name("bool")
            changed = True
        code = with_signature(code, fn)
    if not changed:
        return None
    used = [name for name in ("Any", "Callable", "Iterable") if re.search(rf"[:>] [^\n]*\b{name}\b", code)]
    return add_import(code, f"from typing import {', '.join(used)}") if used else code


def _add_docstrings(code: str) -> str | None:
    targets = [f for f in functions(code) if ast.get_docstring(f) is None]
    for fn in sorted(targets, key=lambda f: -f.lineno):
        index, indent = fn.lineno, " " * fn.body[0].col_offset  # right under the (single-line) def
        sentence = fn.name.strip("_").replace("_", " ").capitalize()
        code = insert(code, index, [f'{indent}"""{sentence}."""'])
    return code if targets else None


def _add_validation(code: str) -> str | None:
    fn = main_function(code)
    if fn is None:
        return None
    checks: list[str] = []
    index, indent = body_start(fn)
    defaults = defaults_by_name(fn)
    for arg in named_params(fn):
        name, kind = arg.arg, _guess_type(arg.arg)
        default = defaults.get(name)
        optional = isinstance(default, ast.Constant) and default.value is None
        if optional or kind.startswith("tuple") or re.search(rf'Error\("{name}\b', code):
            continue  # already checked
        if kind in ("int", "float"):
            checks += [f"{indent}if {name} <= 0:", f'{indent}    raise ValueError("{name} must be positive")']
        elif kind == "str":
            checks += [f"{indent}if not {name}:", f'{indent}    raise ValueError("{name} must not be empty")']
        elif kind.startswith("Callable"):
            checks += [
                f"{indent}if not callable({name}):", f'{indent}    raise TypeError("{name} must be callable")',
            ]
        else:
            checks += [f"{indent}if {name} is None:", f'{indent}    raise ValueError("{name} is required")']
    return insert(code, index, checks) if checks else None


def _add_retry(code: str) -> str | None:
    fn = main_function(code)
    if fn is None or "retry" in code.lower():
        return None
    decorator = [
        "", "",
        "def with_retries(attempts=3, delay_s=0.5):",
        "    # Retries transient failures only; anything else is a bug and surfaces at once.",
        "    def wrap(func):",
        "        @functools.wraps(func)",
        "        def wrapper(*args, **kwargs):",
        "            for attempt in range(attempts - 1):",
        "                try:",
        "                    return func(*args, **kwargs)",
        "                except (ConnectionError, TimeoutError):",
        "                    time.sleep(delay_s * 2 ** attempt)",
        "            return func(*args, **kwargs)",
        "        return wrapper",
        "    return wrap",
        "",
    ]
    code = insert(code, fn.lineno - 1, ["@with_retries()"])
    code = insert(code, after_imports(code), decorator)
    return add_import(add_import(code, "import time"), "import functools")


_KEYWORD_EDITS: list[tuple[str, Edit, str]] = [
    (r"timeout", _add_timeout, "added a timeout (DEFAULT_TIMEOUT_S = 10.0)"),
    (r"\bretr(y|ies)\b", _add_retry, "added retries with exponential backoff"),
    (r"validat|check (the )?inputs?|empty|invalid input", _add_validation, "validated the inputs"),
    (r"\blog(ging|s)?\b", _add_logging, "added logging"),
    (r"type hint|annotat|typing", _add_type_hints, "added type hints"),
    (r"docstring|document", _add_docstrings, "added docstrings"),
]


def _note_at_line(code: str, number: int, note: str) -> str:
    lines = code.split("\n")
    index = min(max(number - 1, 1), len(lines))  # never above the "# file:" line
    target = lines[index] if index < len(lines) else ""
    indent = target[: len(target) - len(target.lstrip())]
    return insert(code, index, [f"{indent}# Review (line {number}): {note}"])


def _review_note(code: str, instruction: str) -> str:
    match = re.search(r"^REVISION = (\d+)$", code, flags=re.M)
    if match:
        code = code.replace(match.group(0), f"REVISION = {int(match.group(1)) + 1}")
    else:
        code = insert(code, after_imports(code), ["", "REVISION = 2  # bumped on every reviewed revision"])
    note = cut_visibly(" ".join(_general_words(instruction).split()), 160)
    return insert(code, 1, [f"# Review: {note}"])


def _general_words(instruction: str) -> str:
    """The instruction without its line comments (those become notes on their lines)."""
    heading = re.escape(LINE_COMMENTS_HEADING)
    general = [ln for ln in instruction.split("\n") if not re.search(rf"\bline\s+\d+\s*:|^{heading}", ln)]
    return " ".join(general)
