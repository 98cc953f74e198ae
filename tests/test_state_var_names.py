"""No page State redefines a var of the shared AppState. A substate's `user_id` (a Slack user id, say)
would be a second var beside the signed-in user's, and the page's own code would read and write it
while the access checks read the other: found when the Slack links form sent its text into it."""

from __future__ import annotations

import importlib


def _subclasses(cls: type) -> list[type]:
    found = []
    for sub in cls.__subclasses__():
        found += [sub, *_subclasses(sub)]
    return found


def test_no_state_redefines_a_var_of_app_state():
    importlib.import_module("hitl_dashboard.ui.pages.registry")  # every page, so every State is defined
    from hitl_dashboard.ui.states.app_state import AppState

    shared = set(AppState.base_vars) | set(AppState.computed_vars)
    states = _subclasses(AppState)
    assert len(states) > 20, "the page States were not found"
    clashes = {f"{s.__name__}.{name}" for s in states
               for name in set(s.base_vars) | set(s.computed_vars)
               if name in shared and name in s.__dict__.get("__annotations__", {})}
    assert not clashes, f"these vars hide AppState's own: {sorted(clashes)}"
