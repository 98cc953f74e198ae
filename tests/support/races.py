"""Run calls at the same instant from threads, each with its own unit of work (tests of races)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def race(calls: list[Callable[[], Any]], *, timeout_s: float = 60) -> list:
    """Start the calls together (a barrier); each result is a value or the exception it raised."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(index: int, call: Callable[[], Any]) -> None:
        barrier.wait()
        try:
            results[index] = call()
        except Exception as exc:  # noqa: BLE001 - the test inspects what each racer got
            results[index] = exc

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=timeout_s)
    assert not any(t.is_alive() for t in threads), "a racing call hung"
    return results
