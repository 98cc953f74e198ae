"""`runner --until-idle` drains everything the long-running runner does (issue 28): pending turns,
code analyses, reviewers' questions and webhook deliveries all end done; a delivery whose receiver
is down and has attempts left is reported as waiting, with the time of its next attempt."""

from __future__ import annotations

import json

import pytest
from sqlmodel import select

from hitl_dashboard.cli.entry import main
from hitl_dashboard.db.findings_models import CodeAnalysis
from hitl_dashboard.db.models import WebhookDelivery
from hitl_dashboard.db.uow import UnitOfWork
from hitl_dashboard.services.questions.questions import ask_question, review_questions
from hitl_dashboard.services.webhooks import webhooks
from hitl_dashboard.settings import reset_settings_cache
from tests.e2e.app_process import free_port
from tests.support import flow
from tests.support.db_state import use_cheap_passwords
from tests.support.webhook_receiver import receiving


@pytest.fixture
def receiver(db_url, monkeypatch):
    monkeypatch.setenv("PUBLIC_URL", "http://hitl.test")
    reset_settings_cache()
    use_cheap_passwords(monkeypatch)
    flow.make_people()
    with receiving() as started:
        yield started


def _rows(model) -> list:
    with UnitOfWork() as uow:
        return list(uow.session.exec(select(model)))


def test_until_idle_leaves_no_turn_analysis_question_or_due_delivery_behind(receiver, capsys) -> None:
    webhooks.add_webhook(flow.actor("erin"), url=receiver.url, events=list(webhooks.EVENTS))
    # Work the long-running runner would do: a review with its code not analysed yet and a question
    # on it (the turns-only drain of the tests leaves both), and a conversation not started yet.
    asked_on = flow.start("Write a helper to run a shell command")
    flow.work()
    review = flow.only_open_review(asked_on)
    question = ask_question(flow.actor("alice"), review.id, "Why shell=True?")
    waiting = flow.start("Add retry with exponential backoff to the payments client")
    assert [a.status for a in _rows(CodeAnalysis)] == ["pending"]
    queued = len(_rows(WebhookDelivery))
    assert queued >= 1 and flow.conversation(waiting).status == "running"

    assert main(["--json", "runner", "--until-idle"]) == 0
    report = json.loads(capsys.readouterr().out)

    assert flow.conversation(waiting).status == "awaiting_review"
    assert sorted(a.status for a in _rows(CodeAnalysis)) == ["analysed", "analysed"]
    [answered] = review_questions(flow.actor("alice"), review.id)
    assert (answered.id, answered.status, answered.model) == (question.id, "answered", "scripted")
    assert "shell=True lets the caller" in answered.answer
    deliveries = _rows(WebhookDelivery)
    assert len(deliveries) > queued  # the second conversation's review opened one more
    assert {d.status for d in deliveries} == {"delivered"} and len(receiver.received) == len(deliveries)
    assert (report["runs"], report["analyses"], report["questions"]) == (1, 2, 1)
    assert (report["delivered"], report["deliveries_failed"]) == (len(deliveries), 0)
    assert report["left"] == {"deliveries_waiting": 0, "next_delivery_at": None, "analyses": 0, "questions": 0}


def test_a_delivery_waiting_for_its_retry_is_reported_not_waited_for(receiver, capsys, monkeypatch) -> None:
    monkeypatch.setenv("WEBHOOK_RETRY_BASE_S", "3600")  # the next attempt is an hour away
    reset_settings_cache()
    webhooks.add_webhook(flow.actor("erin"), url=f"http://127.0.0.1:{free_port()}/down", events=list(webhooks.EVENTS))
    flow.start("Write a helper to run a shell command")

    assert main(["runner", "--until-idle"]) == 0
    said = capsys.readouterr().out

    [delivery] = _rows(WebhookDelivery)
    assert (delivery.status, delivery.attempts) == ("pending", 1) and "ConnectError" in delivery.last_error
    assert "left: 1 webhook delivery(ies) waiting for a retry, the next at " in said
    assert f"{delivery.next_attempt_at:%Y-%m-%d %H:%M}" in said
