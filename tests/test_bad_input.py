"""Bad input (issue 34): team files past a bound (nesting, aliases, size) and JSON that could mean two
things are refused with a message naming the problem, from the parser the CLI, the API and the
browser share; generated documents never get anything but a valid team or that refusal."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hitl_dashboard.cli.entry import main
from hitl_dashboard.domain.bounded_input import MAX_ALIASES, load_json
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.teams.loading import TeamFileInvalid, parse_team
from tests.test_team_files import MINIMAL

DEEP = "x: " + "[" * 5000 + "]" * 5000
LAUGHS = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
    f"{b}: &{b} [{', '.join(['*' + a] * 10)}]\n" for a, b in zip("abcdefgh", "bcdefghi", strict=True))
MANY_ALIASES = "a: &a x\nb: [" + ", ".join(["*a"] * (MAX_ALIASES + 1)) + "]\n"


@pytest.mark.parametrize(("text", "named"), [
    (DEEP, "nested more than 64 levels deep (the limit)"),
    (LAUGHS, "holds more than 100,000 values once its aliases are expanded (the limit)"),
    (MANY_ALIASES, "uses more than 100 aliases (the limit)"),
    ("a: &a [*a]", "has an alias inside the value it names"),
    ("x: " + "y" * 300 * 1024, "larger than 256 KiB (the limit)"),
    (MINIMAL + "name: twice\n", "gives the key 'name' twice"),
    ("x: 2024-13-45", "holds a value YAML cannot read: month must be in 1..12"),
], ids=["nesting", "billion-laughs", "aliases", "alias-cycle", "size", "key-twice", "bad-date"])
def test_the_cli_names_the_bound_a_team_file_breaks(tmp_path: Path, capsys, text: str, named: str) -> None:
    path = tmp_path / "team.yaml"
    path.write_text(text, encoding="utf-8")
    assert main(["teams", "validate", str(path)]) == 2  # invalid input, as for any bad team file
    err = capsys.readouterr().err
    assert err.startswith("error: the file ") and named in err, err
    assert "Traceback" not in err and "recursion" not in err


def test_importing_a_file_past_a_bound_saves_nothing(tmp_path: Path, capsys, sqlite_url) -> None:
    from tests.support import flow

    flow.make_people()
    path = tmp_path / "deep.yaml"
    path.write_text(DEEP, encoding="utf-8")
    assert main(["teams", "import", str(path), "--as", "erin"]) == 2
    assert "nested more than 64 levels deep (the limit)" in capsys.readouterr().err
    assert main(["teams", "versions", "ops", "--json"]) == 0  # the database is untouched and readable
    path.write_bytes("name: ops\n".encode("utf-16"))
    assert main(["teams", "validate", str(path)]) == 2
    assert "is not UTF-8 (byte 0 is not)" in capsys.readouterr().err


@pytest.mark.parametrize(("body", "named"), [
    (b'{"action": "approve", "action": "abort"}', "gives the key 'action' twice in one object"),
    ('{"action": "approve"}'.encode("utf-16"), "is not UTF-8 (byte 0 is not)"),
    ('{"action": "approve"}'.encode("utf-16-le"), "holds NUL bytes, as UTF-16 or UTF-32 would"),
    (b'\xef\xbb\xbf{"action": "approve"}', "starts with a byte order mark"),
    (b"[" * 5000 + b"]" * 5000, "is nested more than 64 levels deep (the limit)"),
    (b'{"edited_args": {"x": NaN}}', "holds NaN, which JSON does not allow"),
], ids=["key-twice", "utf-16-bom", "utf-16-le", "utf-8-bom", "nesting", "nan"])
def test_json_that_could_mean_two_things_is_refused(body: bytes, named: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        load_json(body)
    assert str(refused.value).startswith("the body " + named)


# YAML built from the pieces that break parsers: nesting of both kinds, anchors and aliases (also
# to names never anchored, and inside their own anchor), merge keys, any unicode.
_scalar = st.one_of(st.text(max_size=8), st.sampled_from(["*a", "*b", "~", "2024-13-45", "1" * 5000, "!!binary x"]))
_anchor = st.sampled_from(["", "&a ", "&b "])


def _nest(children):
    pair = st.tuples(st.text(max_size=4), children)
    return st.one_of(
        st.builds(lambda a, xs: a + "[" + ", ".join(xs) + "]", _anchor, st.lists(children, max_size=4)),
        st.builds(lambda a, ps: a + "{" + ", ".join(f"{k!r}: {v}" for k, v in ps) + "}", _anchor,
                  st.lists(pair, max_size=4)),
        st.builds(lambda a, x: "{<<: " + x + ", k: " + a + "v}", _anchor, children),
    )


_document = st.builds(lambda depth, inner: "x: " + "[" * depth + inner + "]" * depth,
                      st.integers(0, 200), st.recursive(_scalar, _nest, max_leaves=30))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(extra=_document, keep_team=st.booleans())
def test_generated_team_files_get_a_team_or_a_clear_refusal(extra: str, keep_team: bool) -> None:
    text = (MINIMAL + "\n" if keep_team else "") + "extra_" + extra
    # Never read as a team: the extra key is unknown (or the document breaks a bound, or there is no
    # team at all); either way a refusal that says what, and no stack.
    with pytest.raises(TeamFileInvalid) as refused:
        parse_team(text, "team.yaml")
    assert refused.value.problems and all(p.strip() for p in refused.value.problems)
    assert "Traceback" not in str(refused.value)
