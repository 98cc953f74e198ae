"""`decide-batch` (issue 42): the CLI's batch decision, each review checked on its own; a refused
one is reported with its reason and makes the exit code 1; the same --key again decides nothing twice."""

from __future__ import annotations

import json

import pytest

from tests.conftest import run_cli
from tests.support.db_state import decisions, review, use_cheap_passwords
from tests.support.flow import decide_as, make_people, only_open_review, start, work


@pytest.fixture
def reviews(sqlite_url, monkeypatch) -> list[int]:
    monkeypatch.setenv("SCRIPTED_DELAY_MS", "0")
    use_cheap_passwords(monkeypatch)
    make_people()
    cids = [start(f"Write a function that parses CSV rows, part {i}") for i in range(3)]
    work()
    return [only_open_review(cid).id for cid in cids]


def test_decide_batch_reports_each_review_and_replays_with_the_same_key(reviews):
    first, stale, third = reviews
    stale_arg = f"{stale}:{review(stale).version}"
    decide_as("erin", stale, "approve", override_reason="covering")
    args = ("--json", "decide-batch", str(first), stale_arg, str(third), "--as", "alice", "--action", "approve",
            "--key", "cli-batch-1")
    result = run_cli(*args, check=False)
    assert result.returncode == 1, result.stderr  # one refused
    answer = json.loads(result.stdout)
    assert [r["status"] for r in answer["results"]] == ["decided", "refused", "decided"]
    assert answer["results"][1]["refusal"] == "conflict" and "erin" in answer["results"][1]["reason"]
    again = json.loads(run_cli(*args, check=False).stdout)
    assert [r["status"] for r in again["results"]] == ["replayed", "refused", "replayed"]
    assert [len(decisions(r)) for r in reviews] == [1, 1, 1]


def test_decide_batch_refuses_a_bad_batch_whole(reviews):
    for args, message in ((["decide-batch", str(reviews[0]), str(reviews[0])], "repeated"),
                          (["decide-batch", "abc"], "is not REVIEW or REVIEW:VERSION")):
        result = run_cli("--json", *args, "--as", "alice", "--action", "approve", check=False)
        assert result.returncode == 2 and message in result.stderr, result.stderr
    assert all(review(r).status == "pending" for r in reviews)
