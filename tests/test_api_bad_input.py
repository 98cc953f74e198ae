"""Bad input over HTTP (issue 34): a team file past a bound is a 422 naming it; a body that could mean
two things (a key twice, not UTF-8) is a 400 naming it and is never applied; generated bodies get a
4xx, never a 500. The parsing does not depend on the database: SQLite only."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.api_app import ApiApp
from tests.support.api_helpers import start, wait_for_review
from tests.test_bad_input import DEEP, LAUGHS

pytestmark = [pytest.mark.e2e, pytest.mark.parametrize("api_app", ["sqlite"], indirect=True)]
JSON = {"content-type": "application/json"}


def test_a_team_file_past_a_bound_is_a_422_naming_it(api_app: ApiApp) -> None:
    admin = api_app.client(api_app.token(["admin"]))
    for text, named in ((DEEP, "nested more than 64 levels deep (the limit)"),
                        (LAUGHS, "more than 100,000 values once its aliases are expanded (the limit)")):
        refused = admin.put("/api/teams/deep", json={"yaml": text})
        assert refused.status_code == 422, refused.text
        assert named in refused.json()["detail"][0]["msg"]
    assert admin.get("/api/teams/deep").status_code == 404  # nothing saved


def test_a_decision_that_could_mean_two_things_is_a_400_and_never_applied(api_app: ApiApp) -> None:
    starter = api_app.client(api_app.token(["product_reviewer"]))
    reviewer = api_app.client(api_app.token(["security_reviewer"]))
    review = wait_for_review(reviewer, start(starter))
    url = f"/api/reviews/{review['id']}/decision"

    twice = reviewer.post(url, content=b'{"action": "approve", "action": "abort"}', headers=JSON)
    assert twice.status_code == 400
    assert twice.json()["detail"] == "the body gives the key 'action' twice in one object, so it could mean two things"
    utf16 = reviewer.post(url, content='{"action": "approve"}'.encode("utf-16"), headers=JSON)
    assert utf16.status_code == 400 and "is not UTF-8" in utf16.json()["detail"]
    deep = reviewer.post(url, content=b"[" * 5000 + b"]" * 5000, headers=JSON)
    assert deep.status_code == 400 and "nested more than 64 levels deep" in deep.json()["detail"]

    listed = reviewer.get("/api/reviews", params={"conversation_id": review["conversation_id"]}).json()
    assert [(r["id"], r["status"]) for r in listed] == [(review["id"], "pending")]


# Bodies built from what breaks parsers: nesting, keys given twice, any unicode, other encodings.
_value = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=10)),
                      lambda inner: st.one_of(st.lists(inner, max_size=3),
                                              st.dictionaries(st.text(max_size=5), inner, max_size=3)),
                      max_leaves=20)
_pairs = st.lists(st.tuples(st.sampled_from(["action", "reason", "edited_args", "expected_version", "x"]), _value),
                  max_size=5)


def _body(pairs: list, depth: int, encoding: str) -> bytes:
    fields = ", ".join(f"{json.dumps(k)}: {json.dumps(v)}" for k, v in pairs)
    text = "[" * depth + "{" + fields + "}" + "]" * depth
    return text.encode(encoding, "surrogatepass" if encoding.startswith("utf") else "replace")


@pytest.fixture(scope="module")
def reviewer(api_app: ApiApp):
    return api_app.client(api_app.token(["security_reviewer"]))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(pairs=_pairs, depth=st.integers(0, 2000) | st.just(0),
       encoding=st.sampled_from(["utf-8", "utf-8", "utf-16", "utf-32", "utf-8-sig", "latin-1"]))
def test_generated_decision_bodies_get_a_4xx_never_a_500(reviewer, pairs, depth, encoding) -> None:
    # No such review: a body that reads as a decision gets its 404 from the decide use case itself.
    response = reviewer.post("/api/reviews/999999/decision", headers=JSON, content=_body(pairs, depth, encoding))
    assert 400 <= response.status_code < 500, response.text
