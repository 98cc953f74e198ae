"""Where a team file is wrong (issue 30): a YAML error carries the line and column it is at (the
editor in the browser marks that place beside the text), and a field the team schema refuses is
found in the text by its path, list items by index or by name."""

from __future__ import annotations

import pytest

from hitl_dashboard.domain.bounded_input import MAX_ALIASES, YamlInvalid, load_yaml, yaml_position
from hitl_dashboard.teams.loading import TeamFileInvalid, parse_team

TEAM = """\
name: places
agents:
  - name: planner
    model: fast
  - name: coder
    model: strong
    tools: [deploy]
tools:
  deploy:
    approval: when
"""


@pytest.mark.parametrize(("text", "line", "column", "says"), [
    ("name: [unclosed", 1, 16, "expected ',' or ']'"),
    ("name: x\nagents:\n  - a\n  b: : 2\n", 4, 3, "expected <block end>"),
    ("name: x\nmodels: {a: 1}\nmodels: {b: 2}\n", 3, 1, "gives the key 'models' twice"),
    ("name: x\ndescription: \"unterminated\n", 3, 1, "found unexpected end of stream"),
    ("name: x\n  tab:\tbad: 1\n", 2, 6, "mapping values are not allowed here"),
    ("name: x\nnote: a\x07b\n", 2, 8, "control character U+0007"),
    ("a: &a x\nb: [" + ", ".join(["*a"] * (MAX_ALIASES + 1)) + "]\n", 2, 5 + 4 * MAX_ALIASES, "aliases"),
    ("a: &a [*a]", 1, 4, "an alias inside the value it names"),
], ids=["flow", "indent", "key-twice", "quote", "colon", "control", "aliases", "alias-cycle"])
def test_a_yaml_error_says_its_line_and_column(text: str, line: int, column: int, says: str) -> None:
    with pytest.raises(YamlInvalid) as caught:
        load_yaml(text)
    assert (caught.value.line, caught.value.column) == (line, column), str(caught.value)
    assert says in str(caught.value) and f"line {line}, column {column}" in str(caught.value)
    # A team file carries the place on to the CLI, the API and the editor.
    with pytest.raises(TeamFileInvalid) as team_error:
        parse_team(text)
    assert (team_error.value.line, team_error.value.column) == (line, column)


def test_an_error_with_no_place_has_none() -> None:
    with pytest.raises(TeamFileInvalid) as caught:
        parse_team("- a list")
    assert (caught.value.line, caught.value.column) == (None, None)


@pytest.mark.parametrize(("path", "place"), [
    ("agents.1.model", (6, 5)),
    ("agents.coder.model", (6, 5)),  # teams/references.py names agents by name
    ("agents.coder.tools", (7, 5)),
    ("agents.0.system_prompt", (3, 5)),  # missing: the agent it is missing from
    ("tools.deploy.when", (9, 3)),  # missing: the tool
    ("tools.deploy.approval", (10, 5)),
    ("gates.tools", (1, 1)),  # no gates at all: the document
])
def test_a_field_is_found_in_the_text(path: str, place: tuple[int, int]) -> None:
    assert yaml_position(TEAM, path.split(".")) == place


def test_unreadable_text_has_no_field_places() -> None:
    assert yaml_position("name: [unclosed", ["name"]) is None
    assert yaml_position("", ["name"]) is None
