"""The AG-UI stream (issue 31) over real HTTP against the app's backend, on SQLite and PostgreSQL:
read a running conversation with an SSE client, decide its reviews as they wait, check every event
against ag-ui-protocol's models and the deltas against the stored transcript, and resume from event
ids (between messages and inside one) without gaps or duplicates."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

import httpx
import pytest
from ag_ui.core import Event
from httpx_sse import connect_sse
from pydantic import TypeAdapter

from hitl_dashboard.domain.ag_ui_cursor import StreamCursor
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.token_deltas import deltas
from tests.support.api_app import ApiApp
from tests.support.api_helpers import start

EVENT = TypeAdapter(Event)
CONTENT_TYPES = ("TEXT_MESSAGE_START", "TEXT_MESSAGE_CONTENT", "TEXT_MESSAGE_END", "TOOL_CALL_START",
                 "TOOL_CALL_ARGS", "TOOL_CALL_END")


@dataclass(frozen=True)
class Sent:
    id: str
    data: dict

    @property
    def type(self) -> str:
        return self.data["type"]


def read(app: ApiApp, token: str, conversation_id: int, *, last_event_id: str | None = None,
         on_event: Callable[[Sent], bool] = lambda sent: False) -> list[Sent]:
    """The events until the stream ends, or until on_event returns True (the client hangs up)."""
    got: list[Sent] = []
    headers = {"Authorization": f"Bearer {token}", **({"Last-Event-ID": last_event_id} if last_event_id else {})}
    with httpx.Client(base_url=app.base_url, timeout=30) as client, \
            connect_sse(client, "GET", f"/api/conversations/{conversation_id}/ag-ui", headers=headers) as source:
        assert source.response.status_code == 200, source.response.read()
        assert source.response.headers["content-type"].startswith("text/event-stream")
        for sse in source.iter_sse():
            EVENT.validate_json(sse.data)  # every event is one of the protocol's, as its model reads it
            sent = Sent(sse.id, json.loads(sse.data))
            got.append(sent)
            if on_event(sent):
                break
    return got


def texts(events: list[Sent]) -> dict[str, str]:
    built: dict[str, str] = {}
    for sent in events:
        if sent.type == "TEXT_MESSAGE_START":
            assert sent.data["messageId"] not in built, "a message started twice"
            built[sent.data["messageId"]] = ""
        elif sent.type == "TEXT_MESSAGE_CONTENT":
            built[sent.data["messageId"]] += sent.data["delta"]
    return built


def content(events: list[Sent]) -> list[Sent]:
    return [sent for sent in events if sent.type in CONTENT_TYPES]


@pytest.mark.e2e
def test_the_ag_ui_stream_of_a_running_conversation_resumes_without_gaps_or_duplicates(api_app: ApiApp) -> None:
    starter = api_app.client(api_app.token(["product_reviewer"], "starter"))
    deciders = {role: api_app.client(api_app.token([role])) for role in ("security_reviewer", "final_approver")}
    reader = api_app.token(["manager"], "reader")
    conversation_id = start(starter)

    def decide(sent: Sent) -> None:
        review = sent.data["value"]
        answer = deciders[review["role"]].post(f"/api/reviews/{review['review_id']}/decision", json={
            "action": "approve", "expected_version": review["version"],
            "expected_content_hash": review["content_hash"]})
        assert answer.status_code == 200, answer.text

    # Hang up at the first review that waits, decide it, reconnect after the last event received.
    first = read(api_app, reader, conversation_id, on_event=lambda sent: sent.type == "CUSTOM")
    assert first[0].type == "RUN_STARTED" and first[-1].data["name"] == "hitl.review_waiting"
    decide(first[-1])
    second = read(api_app, reader, conversation_id, last_event_id=first[-1].id,
                  on_event=lambda sent: sent.type == "CUSTOM" and decide(sent) is not None)
    assert second[-1].type == "RUN_FINISHED" and second[-1].data["result"]["status"] == "approved"
    live = first + second
    assert len({sent.id for sent in live}) == len(live), "an event was sent twice"
    assert any(sent.type == "STATE_SNAPSHOT" for sent in second)

    transcript = starter.get(f"/api/conversations/{conversation_id}/transcript", params={"limit": 500}).json()
    stored = {f"conversation-{conversation_id}-message-{m['seq']}": m["content"] for m in transcript["items"]}
    assert texts(live) == stored  # every stored message, once, its deltas adding up to it
    assert sum(sent.type == "TEXT_MESSAGE_CONTENT" for sent in live) > len(stored)  # token-sized, not whole

    # The same conversation read again from the start (any worker, later): the same events. (Ids differ
    # where they also carry the state snapshots sent so far, which depend on when the reader read.)
    again = read(api_app, reader, conversation_id)
    assert [s.data for s in content(again)] == [s.data for s in content(live)]
    # Resumed from inside a message: exactly the rest, then the end of the run.
    middle = next(i for i, sent in enumerate(again) if sent.type == "TEXT_MESSAGE_CONTENT"
                  and again[i + 1].type == "TEXT_MESSAGE_CONTENT")
    rest = read(api_app, reader, conversation_id, last_event_id=again[middle].id)
    assert [s.data for s in content(rest)] == [s.data for s in content(again[middle + 1:])]
    assert rest[-1].type == "RUN_FINISHED" and not {s.id for s in rest} & {s.id for s in again[:middle + 1]}

    # After the run's end there is nothing more to read: 204, which stops an EventSource reconnecting.
    done = httpx.get(f"{api_app.base_url}/api/conversations/{conversation_id}/ag-ui",
                     headers={"Authorization": f"Bearer {reader}", "Last-Event-ID": again[-1].id})
    assert done.status_code == 204


@pytest.mark.e2e
def test_the_ag_ui_stream_needs_a_token_a_known_conversation_and_an_id_of_its_own(api_app: ApiApp) -> None:
    token = api_app.token(["product_reviewer"])
    conversation_id = start(api_app.client(token))
    path = f"{api_app.base_url}/api/conversations/{conversation_id}/ag-ui"
    assert httpx.get(path).status_code == 401
    assert httpx.get(path, headers={"Authorization": "Bearer hitl_not-a-token"}).status_code == 401
    unknown = httpx.get(f"{api_app.base_url}/api/conversations/2147483000/ag-ui",
                        headers={"Authorization": f"Bearer {token}"})
    assert unknown.status_code == 404
    forged = httpx.get(path, headers={"Authorization": f"Bearer {token}", "Last-Event-ID": "<script>"})
    assert forged.status_code == 422 and "Last-Event-ID" in forged.text


@pytest.mark.parametrize("text", ["", " ", "one", "  lead and trail  ", "a\n\n  b\tc ", "x" * 130 + " y",
                                  "word " * 40, "émoji 🎉 text"])
def test_deltas_add_up_to_the_text_and_stay_small(text: str) -> None:
    pieces = deltas(text)
    assert "".join(pieces) == text and all(0 < len(p) <= 48 for p in pieces)
    assert deltas(text) == pieces


@pytest.mark.e2e
def test_a_tool_call_waiting_for_approval_streams_as_tool_call_events(api_app: ApiApp) -> None:
    starter = api_app.client(api_app.token(["product_reviewer"], "starter"))
    conversation_id = start(starter, "Deploy billing-api v1.2.3 to production", task_type="ops")
    events = read(api_app, api_app.token(["manager"], "reader"), conversation_id,
                  on_event=lambda sent: sent.type == "CUSTOM")
    review = events[-1].data["value"]
    assert review["kind"] == "tool_call"
    calls = [sent.data for sent in events if sent.type.startswith("TOOL_CALL_")]
    assert [c["type"] for c in calls] == ["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"]
    assert calls[0]["toolCallName"] == "deploy_to_prod" and len({c["toolCallId"] for c in calls}) == 1
    arguments = json.loads(calls[1]["delta"])
    assert arguments == starter.get(f"/api/conversations/{conversation_id}/export",
                                    params={"format": "json"}).json()["tool_calls"][0]["arguments"]
    state = [sent.data["snapshot"] for sent in events if sent.type == "STATE_SNAPSHOT"][-1]
    assert state["status"] == "awaiting_review" and state["open_reviews"][0]["review_id"] == review["review_id"]


def test_event_ids_round_trip_and_foreign_ones_are_refused() -> None:
    cursor = StreamCursor(True, 12, 3, 4, -1, 9, "0123456789abcdef", False)
    assert StreamCursor.decode(cursor.encode()) == cursor and StreamCursor.decode(None) == StreamCursor()
    for forged in ("1.1.12.3.4.-1.9.xyz.0", "2.1.12.3.4.-1.9..0", "1.1.12.3.4.-1.9..0.extra", "1.1.-5.0.0.-1.0..0"):
        with pytest.raises(InvalidInput):
            StreamCursor.decode(forged)
