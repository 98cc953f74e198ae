"""The embedded (disk) state manager, with its sweep for expired tab states run once a minute.

Why: Reflex 0.10.1's StateManagerDisk lists its folder and stats every state file (one per tab and
state class a tab touched) each time its write queue wakes, and it wakes whenever a queued write
falls due: about once per tab event. With every open tab polling the queue summary, that sweep ran
several times a second over a folder that grows with the tabs, so its cost grew with the square of
the open tabs (a profile at 50 tabs: as much CPU as sending every frame to every tab). Tab states
expire after `token_expiration` (an hour by default): sweeping for them once a minute removes them
at most a minute later. Writes, reads and expiry of the states held in memory are Reflex's own.
"""

from __future__ import annotations

import contextlib
import os
import time

import reflex as rx
from reflex.istate.manager.disk import StateManagerDisk

SWEEP_EVERY_S = 60.0


class SweepingDiskStateManager(StateManagerDisk):
    _last_sweep: float = 0.0

    def _purge_expired_states(self) -> None:
        now = time.monotonic()
        if self._last_sweep and now - self._last_sweep < SWEEP_EVERY_S:
            return
        self._last_sweep = now
        oldest = time.time() - self.token_expiration
        # os.scandir: one directory read, no Path object per file. A folder or file gone meanwhile
        # (another worker's sweep, a cleaned-up folder) is nothing to sweep.
        with contextlib.suppress(FileNotFoundError), os.scandir(self.states_directory) as entries:
            for entry in entries:
                with contextlib.suppress(FileNotFoundError):
                    if entry.name.endswith(".pkl") and entry.stat().st_mtime < oldest:
                        os.unlink(entry.path)


def use_sweeping_disk_manager(app: rx.App) -> None:
    """Right after the app is made, before any tab connects or the event processor starts (a
    lifespan task that reads `app.state_manager`): the embedded manager becomes the one above.
    Redis and memory managers are left as they are."""
    manager = app._state_manager
    if type(manager) is StateManagerDisk:
        expiration = manager.token_expiration
        # The ignore: with a cold cache, mypy reads reflex's StateManagerDisk as having abstract
        # "get_state-redefinition" (and set/modify) members, and a warm cache does not (hence
        # unused-ignore too); the class is concrete (Reflex itself makes one).
        app._state_manager = SweepingDiskStateManager(  # type: ignore[abstract, unused-ignore]
            token_expiration=expiration)
