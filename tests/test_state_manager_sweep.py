"""The embedded state manager's sweep for expired tab states (ui/state_manager.py): it removes the
expired files and keeps the live ones, as Reflex's own does, but at most once per SWEEP_EVERY_S
instead of at every write the manager makes (which, with every tab polling, grew with the square of
the open tabs). The app made by hitl_dashboard.hitl_dashboard uses it in embedded mode."""

from __future__ import annotations

import os
import time

import pytest
from reflex.istate.manager.disk import StateManagerDisk
from reflex.istate.manager.memory import StateManagerMemory

from hitl_dashboard.ui import state_manager
from hitl_dashboard.ui.state_manager import SweepingDiskStateManager, use_sweeping_disk_manager


@pytest.fixture
def states_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("REFLEX_STATES_WORKDIR", str(tmp_path))
    return tmp_path


def _state_file(folder, name: str, age_s: float):
    path = folder / f"{name}.pkl"
    path.write_bytes(b"state")
    then = time.time() - age_s
    os.utime(path, (then, then))
    return path


def test_the_sweep_removes_expired_states_and_keeps_live_ones(states_dir):
    manager = SweepingDiskStateManager(token_expiration=3600)
    old = _state_file(states_dir, "old", 3700)
    live = _state_file(states_dir, "live", 10)
    other = states_dir / "notes.txt"
    other.write_text("not a state")
    manager._last_sweep = 0.0  # as if the last sweep was long ago
    manager._purge_expired_states()
    assert not old.exists()
    assert live.exists() and other.exists()


def test_a_second_sweep_within_the_interval_does_nothing(states_dir, monkeypatch):
    manager = SweepingDiskStateManager(token_expiration=3600)  # swept once on creation, as Reflex's
    expired = _state_file(states_dir, "expired", 3700)
    manager._purge_expired_states()
    assert expired.exists(), "swept again within SWEEP_EVERY_S"
    now = time.monotonic()
    monkeypatch.setattr(state_manager.time, "monotonic", lambda: now + state_manager.SWEEP_EVERY_S + 1)
    manager._purge_expired_states()
    assert not expired.exists()


def test_only_the_disk_manager_is_replaced(states_dir):
    class Holder:
        _state_manager: object

    disk = Holder()
    disk._state_manager = StateManagerDisk(token_expiration=120)
    use_sweeping_disk_manager(disk)  # type: ignore[arg-type]
    assert type(disk._state_manager) is SweepingDiskStateManager
    assert disk._state_manager.token_expiration == 120
    memory = Holder()
    memory._state_manager = original = StateManagerMemory()
    use_sweeping_disk_manager(memory)  # type: ignore[arg-type]
    assert memory._state_manager is original


def test_a_missing_folder_is_nothing_to_sweep(states_dir):
    manager = SweepingDiskStateManager(token_expiration=3600)
    states_dir.rmdir()
    manager._last_sweep = 0.0
    manager._purge_expired_states()  # no error: the folder is made again at the next write
