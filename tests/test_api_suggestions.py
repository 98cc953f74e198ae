"""Suggested lines over the HTTP API: sent as a line comment's `suggestion` with a revise, and read
back with their outcome from the conversation."""

from __future__ import annotations

import time

from tests.support.api_app import ApiApp
from tests.support.api_helpers import start, wait_for_review


def test_a_suggestion_is_sent_over_the_api_and_the_conversation_says_it_was_applied(api_app: ApiApp) -> None:
    starter = api_app.client(api_app.token(["product_reviewer"], "starter"))
    alice_name, alice_token = api_app.user(["security_reviewer"], "alice")
    alice = api_app.client(alice_token)
    cid = start(starter)
    review = wait_for_review(alice, cid)
    url = f"/api/reviews/{review['id']}/decision"

    for comment, said in [({"key": "app/retry.py", "line": 5, "suggestion": ["a\nb"]}, "no line breaks"),
                          ({"key": "app/nothing.py", "line": 5, "suggestion": ["x = 1"]}, "has no file app/nothing.py"),
                          ({"key": "app/retry.py", "line": 5, "end_line": 4, "suggestion": []}, "end_line >= line"),
                          ({"key": "app/retry.py", "line": 5}, "needs a line >= 1 and some text")]:
        response = alice.post(url, json={"action": "revise", "line_comments": [comment]})
        assert response.status_code == 422 and said in response.text, (comment, response.text)

    sent = {"key": "app/retry.py", "line": 5, "end_line": 6, "text": "fewer, slower attempts",
            "suggestion": ["MAX_ATTEMPTS = 3", "BASE_DELAY_S = 0.5"]}
    response = alice.post(url, json={"action": "revise", "line_comments": [sent]})
    assert response.status_code == 200, response.text

    deadline = time.monotonic() + 60
    while True:
        [suggestion] = alice.get(f"/api/conversations/{cid}").json()["suggestions"]
        if suggestion["state"] != "waiting for the next revision" or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert suggestion | {"decision_id": 0} == {
        "decision_id": 0, "reviewer": alice_name, "key": "app/retry.py", "line": 5, "end_line": 6,
        "lines": ["MAX_ATTEMPTS = 3", "BASE_DELAY_S = 0.5"], "text": "fewer, slower attempts", "revision": 1,
        "next_revision": 2, "state": "applied", "detail": "as written", "applied_at_line": 5,
    }
