"""What a caller's args_schema can make the server do (issue 45): adversarial schemas and arguments,
each inside the body limits (64 KB of schema, 64 KB of arguments), checked as a request is checked
(check_schema, then validate_args), this checkout beside the baseline commit, in the same run.

    .venv/bin/python bench/args_schema_cost.py --quick      # this checkout, and the baseline up to 20 s a shape
    .venv/bin/python bench/args_schema_cost.py              # the baseline up to 120 s a shape
    .venv/bin/python bench/args_schema_cost.py --baseline-commit 28c6733

Per shape: the worst of --repeat checks in a fresh process (the first compiles the schema; later ones
find it compiled, as a replay or an edit does), accepted or refused. Before them the process checks
one small other schema: what a process pays once (jsonschema-rs builds its meta-schemas, ~100 ms;
the old code's imports) is not a request's cost.
Target: the worst accepted request and the worst refused one each <= 50 ms. A baseline that does
not finish within its time limit is shown as "> N s" (it was killed)."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._support import ROOT  # noqa: E402
from bench.live_transcript import baseline_tree  # noqa: E402

BASELINE = "28c6733"  # main before issue 45: jsonschema (pure Python), no limits
TARGET_MS = 50.0


def _ref_bomb(levels: int) -> dict:
    defs = {f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]} for i in range(levels)}
    return {"type": "object", "$ref": "#/$defs/d0", "$defs": {**defs, f"d{levels}": {"type": "object"}}}


def _items(schema: dict) -> dict:
    return {"type": "object", "properties": {"a": {"type": "array", "items": schema}}}


def shapes() -> dict[str, tuple[dict, dict[str, Any]]]:
    """name -> (schema, arguments)."""
    return {
        "$ref bomb, 18 levels (1.3 KB)": (_ref_bomb(18), {}),
        "uniqueItems, 4,000 objects": ({"type": "object", "properties": {"a": {"uniqueItems": True}}},
                                       {"a": [{"k": n} for n in range(4000)]}),
        "uniqueItems, 4,000 objects, last repeated": ({"type": "object", "properties": {"a": {"uniqueItems": True}}},
                                                      {"a": [{"k": n} for n in range(3999)] + [{"k": 0}]}),
        "allOf 300 passing x 1,600 values (at the work limit)": (
            _items({"allOf": [{"minimum": -n} for n in range(300)]}), {"a": [1] * 1600}),
        "allOf 600 passing x 3,000 values (over the work limit)": (
            _items({"allOf": [{"minimum": -n} for n in range(600)]}), {"a": [1] * 3000}),
        "anyOf 300, last branch passes, x 1,000 values, last fails": (
            _items({"anyOf": [*({"type": "string", "minLength": n} for n in range(299)), {"type": "integer"}]}),
            {"a": [1] * 999 + [1.5]}),
        "anyOf 600 failing x 10,000 values (over the work limit)": (
            _items({"anyOf": [{"type": "string", "minLength": n} for n in range(600)]}), {"a": [1] * 10_000}),
        "plain items x 20,000 values": (_items({"type": "integer"}), {"a": [1] * 20_000}),
        "backtracking pattern ^(a|aa)+$ on 40 a's and !": (
            {"type": "object", "properties": {"s": {"pattern": "^(a|aa)+$"}}}, {"s": "a" * 40 + "!"}),
        "pattern (a|aa)+$ x 300 strings of 100": (
            _items({"pattern": "(a|aa)+b$"}), {"a": ["a" * 100] * 300}),
        "enum 400 x 2,000 values": (_items({"enum": list(range(1000, 1400))}), {"a": [1399] * 2000}),
    }


def one(name: str, repeat: int, tree: str) -> dict[str, Any]:
    """In `tree`'s code: the worst time of `repeat` checks of one shape, and how it ended."""
    sys.path.insert(0, tree)  # before this checkout, which the import of this module put first
    import hitl_dashboard
    from hitl_dashboard.domain.errors import InvalidInput
    from hitl_dashboard.services.external_outcomes.args_schema import check_schema, validate_args

    assert Path(hitl_dashboard.__file__).is_relative_to(tree), hitl_dashboard.__file__
    schema, arguments = shapes()[name]
    # Once per process, not per request: the validator builds its meta-schemas at its first schema.
    check_schema({"type": "object", "properties": {"warm": {"type": "string"}}})
    worst, outcome = 0.0, ""
    for _ in range(repeat):
        started = time.perf_counter()
        try:
            check_schema(schema)
            validate_args(schema, arguments, "arguments")
            outcome = "accepted"
        except InvalidInput as exc:
            outcome = "refused: " + str(exc)[:70]
        except RecursionError:
            outcome = "RecursionError"
        worst = max(worst, time.perf_counter() - started)
    return {"ms": worst * 1000, "outcome": outcome}


def measure(tree: Path, name: str, repeat: int, limit_s: float) -> dict[str, Any]:
    code = (f"import sys, json; sys.path.insert(0, {str(ROOT)!r}); "
            f"from bench.args_schema_cost import one; print(json.dumps(one({name!r}, {repeat}, {str(tree)!r})))")
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=tree, capture_output=True, text=True,
                              timeout=limit_s, check=True)
    except subprocess.TimeoutExpired:
        return {"ms": None, "outcome": f"killed after {limit_s:.0f} s"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="baseline shapes killed after 20 s")
    parser.add_argument("--baseline-commit", default=BASELINE, help=f"default {BASELINE}")
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    limit_s = 20.0 if args.quick else 120.0
    rows = {name: [measure(ROOT, name, args.repeat, limit_s)] for name in shapes()}
    if not args.no_baseline:
        with baseline_tree(args.baseline_commit) as tree:
            for name in shapes():
                rows[name].append(measure(tree, name, 1, limit_s))
    print(f"{'shape':<58}{'worst ms':>10}  {'outcome':<40}{'baseline ' + args.baseline_commit:>22}  outcome")
    worst = {"accepted": 0.0, "refused": 0.0}
    for name, (new, *old) in rows.items():
        kind = "accepted" if new["outcome"] == "accepted" else "refused"
        worst[kind] = max(worst[kind], new["ms"])
        before = old[0] if old else {"ms": None, "outcome": "-"}
        before_ms = f"{before['ms']:,.1f} ms" if before["ms"] is not None else f"> {limit_s:.0f} s"
        print(f"{name:<58}{new['ms']:>10.1f}  {new['outcome'][:40]:<40}{before_ms:>22}  {before['outcome'][:40]}")
    for kind, ms in worst.items():
        print(f"worst {kind}: {ms:.1f} ms (target <= {TARGET_MS:.0f} ms) {'ok' if ms <= TARGET_MS else 'MISSED'}")


if __name__ == "__main__":
    main()
