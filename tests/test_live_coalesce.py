"""The coalescer behind streamed text (services/live/coalesce.py): latest wins, at most one send
per interval, and the last value always goes out. Driven by a manual clock: no sleeps, no timing."""

from __future__ import annotations

import asyncio

from hitl_dashboard.services.live.coalesce import Coalescer
from hitl_dashboard.services.live.streams import PREVIOUS_KEPT_MS, LocalStreams, Stream, StreamTexts, remember

INTERVAL = 0.08


class ManualTime:
    """A clock that moves only when the test says so; sleepers wake when it passes their time."""

    def __init__(self) -> None:
        self.now = 0.0
        self._sleepers: list[tuple[float, asyncio.Future]] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        future = asyncio.get_running_loop().create_future()
        self._sleepers.append((self.now + seconds, future))
        await future

    async def advance(self, seconds: float) -> None:
        self.now += seconds
        for due, future in list(self._sleepers):
            if due <= self.now + 1e-9:
                self._sleepers.remove((due, future))
                future.set_result(None)
        await settle()


async def settle() -> None:
    """Let every task that can run, run (a handful of loop turns; nothing here waits on I/O)."""
    for _ in range(20):
        await asyncio.sleep(0)


def run(scenario) -> None:
    asyncio.run(scenario())


def coalescer(time: ManualTime, sent: list, send=None) -> Coalescer:
    async def record(key, value):
        sent.append((round(time.now, 3), key, value))

    return Coalescer(send or record, INTERVAL, clock=time.clock, sleep=time.sleep)


def test_the_first_value_goes_out_at_once():
    async def scenario():
        time, sent = ManualTime(), []
        c = coalescer(time, sent)
        c.put(1, "a")
        await settle()
        assert sent == [(0.0, 1, "a")]

    run(scenario)


def test_latest_wins_within_an_interval_and_the_last_value_goes_out_at_its_end():
    async def scenario():
        time, sent = ManualTime(), []
        c = coalescer(time, sent)
        c.put(1, "a")
        await settle()
        await time.advance(0.02)
        c.put(1, "ab")
        await time.advance(0.02)
        c.put(1, "abc")
        await settle()
        assert sent == [(0.0, 1, "a")]  # held back: less than an interval since "a"
        await time.advance(0.04)
        assert sent == [(0.0, 1, "a"), (0.08, 1, "abc")]  # "ab" was replaced before it went out
        await time.advance(INTERVAL)
        assert not c.busy(1)  # quiet for an interval: done
        assert len(sent) == 2

    run(scenario)


def test_a_trailing_value_is_never_held_back_after_the_stream_stops():
    async def scenario():
        time, sent = ManualTime(), []
        c = coalescer(time, sent)
        for step in range(10):  # a chunk every 30 ms: faster than the interval
            c.put(7, "x" * (step + 1))
            await time.advance(0.03)
        await time.advance(INTERVAL)
        assert sent[-1][2] == "x" * 10
        assert len(sent) < 10
        # At most one send per interval.
        times = [moment for moment, _key, _value in sent]
        assert all(later - earlier >= INTERVAL - 1e-9 for earlier, later in zip(times, times[1:], strict=False))

    run(scenario)


def test_after_a_quiet_interval_the_next_value_goes_out_at_once():
    async def scenario():
        time, sent = ManualTime(), []
        c = coalescer(time, sent)
        c.put(1, "a")
        await settle()
        await time.advance(1.0)
        c.put(1, "b")
        await settle()
        assert sent == [(0.0, 1, "a"), (1.0, 1, "b")]

    run(scenario)


def test_keys_are_independent():
    async def scenario():
        time, sent = ManualTime(), []
        c = coalescer(time, sent)
        c.put(1, "a")
        c.put(2, "b")
        await settle()
        assert sorted(sent) == [(0.0, 1, "a"), (0.0, 2, "b")]

    run(scenario)


def test_a_slow_send_delays_the_next_one_instead_of_piling_up():
    async def scenario():
        time, sent = ManualTime(), []
        release = asyncio.Event()

        async def slow(key, value):
            sent.append(value)
            if value == "a":
                await release.wait()

        c = coalescer(time, sent, send=slow)
        c.put(1, "a")
        await settle()
        for text in ("ab", "abc", "abcd"):
            c.put(1, text)
            await time.advance(INTERVAL)
        assert sent == ["a"]  # still sending "a": nothing else started meanwhile
        release.set()
        await settle()
        assert sent == ["a", "abcd"]  # the send outlasted the interval: the latest goes at once

    run(scenario)


def test_a_failing_send_does_not_stop_the_next_ones():
    async def scenario():
        time, sent = ManualTime(), []

        async def flaky(key, value):
            sent.append(value)
            if value == "a":
                raise ConnectionError("socket gone")

        c = coalescer(time, sent, send=flaky)
        c.put(1, "a")
        await settle()
        c.put(1, "ab")
        await time.advance(INTERVAL)
        assert sent == ["a", "ab"]

    run(scenario)


def test_stream_texts_join_chunks_of_one_message_and_restart_on_the_next():
    texts = StreamTexts()
    first = texts.add(3, "coder", "m1", "Hello ")
    second = texts.add(3, "coder", "m1", "world")
    assert (second.source, second.text, second.started) == ("coder", "Hello world", first.started)
    third = texts.add(3, "planner", "m2", "Next")
    assert (third.source, third.text) == ("planner", "Next")
    assert third.started >= first.started
    # The message before rides along, so a browser keeps it until its stored version arrives.
    assert (third.previous_source, third.previous_text, third.previous_started) == (
        "coder", "Hello world", first.started)
    assert texts.add(4, "coder", "m9", "Other").previous_text == ""  # conversations are apart


def test_the_previous_message_is_dropped_after_a_while(monkeypatch):
    texts = StreamTexts()
    texts.add(3, "coder", "m1", "Hello")
    texts.add(3, "planner", "m2", "Next")
    later = Stream.now_ms() + PREVIOUS_KEPT_MS + 1
    monkeypatch.setattr(Stream, "now_ms", staticmethod(lambda: later))
    stream = texts.add(3, "planner", "m2", " step")
    assert (stream.text, stream.previous_text, stream.previous_started) == ("Next step", "", 0.0)


def test_local_streams_move_a_tab_to_the_feed_it_shows_now():
    async def scenario():
        store = LocalStreams()
        await store.watch("conv-1", "tab-a")
        await store.watch("conv-1", "tab-b")
        await store.watch("queue-security-reviewer", "tab-a")
        assert sorted(await store.watchers("conv-1")) == ["tab-b"]
        assert await store.watchers("queue-security-reviewer") == ["tab-a"]
        await store.forget("queue-security-reviewer", "tab-a")
        assert await store.watchers("queue-security-reviewer") == []

    run(scenario)


def test_remember_keeps_only_the_newest_entries():
    mapping: dict[int, str] = {}
    for key in range(5):
        remember(mapping, key, str(key), limit=3)
    remember(mapping, 2, "again", limit=3)
    assert list(mapping) == [3, 4, 2]


def test_the_interval_may_depend_on_the_key():
    """ui/live.py: a conversation many tabs watch streams less often."""
    async def scenario():
        time, sent = ManualTime(), []

        async def record(key, value):
            sent.append((round(time.now, 3), key, value))

        c = Coalescer(record, lambda key: 2 * INTERVAL if key == "crowded" else INTERVAL,
                      clock=time.clock, sleep=time.sleep)
        for key in ("quiet", "crowded"):
            c.put(key, "a")
        await settle()
        for key in ("quiet", "crowded"):
            c.put(key, "ab")
        await time.advance(INTERVAL)
        assert sent == [(0.0, "quiet", "a"), (0.0, "crowded", "a"), (0.08, "quiet", "ab")]
        await time.advance(INTERVAL)
        assert sent[-1] == (0.16, "crowded", "ab")

    run(scenario)


def test_a_conversation_many_tabs_watch_streams_half_as_often():
    from hitl_dashboard.ui import live as live_ui

    sink = live_ui.ReflexLiveSink(object(), asyncio.new_event_loop())
    sink._stream_tabs.update({1: live_ui.CROWD_TABS, 2: live_ui.CROWD_TABS + 1})
    assert [sink._stream_interval(cid) for cid in (1, 2, 3)] == [
        live_ui.STREAM_FLUSH_S, live_ui.CROWD_STREAM_FLUSH_S, live_ui.STREAM_FLUSH_S]
