"""Line-level edits of small Python sources, guided by ``ast`` (pure stdlib; used by scripted_revise).

Why text edits and not ``ast.unparse`` of the whole module: unparse drops comments and reflows the code,
so every revision would differ everywhere and the reviewers' diff would be useless.
"""

from __future__ import annotations

import ast
import re


def functions(code: str) -> list[ast.FunctionDef]:
    """Top-level functions and methods; nested helpers (decorator internals) are left alone."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    for cls in (n for n in tree.body if isinstance(n, ast.ClassDef)):
        found += [n for n in cls.body if isinstance(n, ast.FunctionDef)]
    return found


def main_function(code: str) -> ast.FunctionDef | None:
    """The entry point: the last top-level public function."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return None
    public = [n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]
    return public[-1] if public else None


def with_signature(code: str, fn: ast.FunctionDef) -> str:
    """Rewrite ``fn``'s (single-line) def from its edited ast node."""
    lines = code.split("\n")
    indent = " " * fn.col_offset
    returns = f" -> {ast.unparse(fn.returns)}" if fn.returns else ""
    lines[fn.lineno - 1] = f"{indent}def {fn.name}({format_args(fn.args)}){returns}:"
    return "\n".join(lines)


def format_args(args: ast.arguments) -> str:
    """Like ast.unparse, but PEP 8 spacing: ``x: int = 1`` next to ``y=2``."""

    def one(arg: ast.arg, default: ast.expr | None, prefix: str = "") -> str:
        text = prefix + arg.arg + (f": {ast.unparse(arg.annotation)}" if arg.annotation else "")
        if default is None:
            return text
        return text + (" = " if arg.annotation else "=") + ast.unparse(default)

    positional = args.posonlyargs + args.args
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    parts = [one(a, d) for a, d in zip(positional, defaults, strict=True)]
    if args.posonlyargs:
        parts.insert(len(args.posonlyargs), "/")
    if args.vararg is not None:
        parts.append(one(args.vararg, None, "*"))
    elif args.kwonlyargs:
        parts.append("*")
    parts += [one(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)]
    if args.kwarg is not None:
        parts.append(one(args.kwarg, None, "**"))
    return ", ".join(parts)


def defaults_by_name(fn: ast.FunctionDef) -> dict[str, ast.expr]:
    positional = fn.args.posonlyargs + fn.args.args
    pairs = zip(positional[len(positional) - len(fn.args.defaults):], fn.args.defaults, strict=True)
    named = {a.arg: d for a, d in pairs}
    named.update({a.arg: d for a, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults, strict=True) if d is not None})
    return named


def body_start(fn: ast.FunctionDef) -> tuple[int, str]:
    """0-based line index where new statements go (after a docstring) and the body's indentation."""
    first = fn.body[0]
    indent = " " * first.col_offset
    decorators = getattr(first, "decorator_list", [])
    if decorators:  # a nested decorated def starts at its first decorator
        return min(d.lineno for d in decorators) - 2, indent
    has_doc = (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
               and isinstance(first.value.value, str))
    if has_doc and len(fn.body) > 1:
        return first.end_lineno or first.lineno, indent
    return first.lineno - 1, indent


def insert(code: str, index: int, new_lines: list[str]) -> str:
    lines = code.split("\n")
    return "\n".join(lines[:index] + new_lines + lines[index:])


def after_imports(code: str) -> int:
    lines = code.split("\n")
    last = max((i for i, line in enumerate(lines) if re.match(r"(import|from)\s", line)), default=0)
    return last + 1


def add_import(code: str, statement: str) -> str:
    if re.search(rf"^{re.escape(statement)}$", code, flags=re.M):
        return code
    return insert(code, 1, [statement])  # line 0 is the "# file:" comment


def named_params(fn: ast.FunctionDef) -> list[ast.arg]:
    return [a for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs if a.arg not in ("self", "cls")]
