"""The live refresh after a committed change (ui/live.py): the first change after a quiet spell is
refreshed at once, with no coalescing window in front of it (a stored message must reach the
watching browsers without waiting); changes that arrive while a pass runs or during the pause after
it are taken together in one next pass. Driven by a gate instead of a clock: no sleeps, no timing."""

from __future__ import annotations

import asyncio

import pytest

from hitl_dashboard.ui import live as live_ui


class Gate:
    """Stands for the pause after a pass: it ends only when the test opens it."""

    def __init__(self):
        self.waiting = 0
        self._open = asyncio.Event()

    async def sleep(self, _seconds: float) -> None:
        self.waiting += 1
        await self._open.wait()
        self._open.clear()

    def open(self) -> None:
        self._open.set()


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


@pytest.fixture
def refreshed(monkeypatch):
    calls: list[tuple[str, object]] = []

    async def refresh(_app, conversation_ids, roles):
        calls.extend(("conversation", cid) for cid in conversation_ids)
        calls.append(("queues", roles))

    monkeypatch.setattr(live_ui, "refresh", refresh)
    return calls


def test_the_first_change_is_refreshed_at_once_and_a_burst_after_it_in_one_pass(refreshed):
    async def scenario():
        gate = Gate()
        sink = live_ui.ReflexLiveSink(object(), asyncio.get_running_loop(), sleep=gate.sleep)
        sink.changed(7, ("security_reviewer",))
        await _settle()
        # Refreshed before any pause was taken: nothing waited in front of it.
        assert refreshed == [("conversation", 7), ("queues", ("security_reviewer",))]
        assert gate.waiting == 1
        refreshed.clear()
        sink.changed(9, ("product_reviewer",))
        sink.changed(8, ("security_reviewer",))
        sink.changed(9, ("final_approver",))
        await _settle()
        assert refreshed == []  # the pause after the last pass is not over
        gate.open()
        await _settle()
        assert refreshed == [("conversation", 8), ("conversation", 9),
                             ("queues", ("security_reviewer", "product_reviewer", "final_approver"))]
        refreshed.clear()
        gate.open()  # a quiet spell: the flusher waits for the next change, refreshing nothing
        await _settle()
        assert refreshed == []
        sink.changed(7)
        await _settle()
        assert refreshed[0] == ("conversation", 7)
        sink._flusher.cancel()

    asyncio.run(scenario())
