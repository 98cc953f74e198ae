"""How a refusal names a name that does not exist: the bad name, every allowed name, and the
closest allowed one ("did you mean"), so a typo is fixed from the message alone."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(bad: object, allowed: Iterable[object]) -> str:
    """' (did you mean 'x'?)' for the closest allowed name, '' when none is close."""
    by_text = {str(name): name for name in allowed}
    text = str(bad).lower()
    close = difflib.get_close_matches(str(bad), list(by_text), n=1, cutoff=0.6) or [
        name for name in by_text if text and (name.lower().startswith(text) or text.startswith(name.lower()))][:1]
    return f" (did you mean {by_text[close[0]]!r}?)" if close else ""


def listed(names: Iterable[object]) -> str:
    shown = [repr(name) for name in names]
    return ", ".join(shown) if shown else "(none)"


def unknown_name(bad: object, kind: str, allowed: Iterable[object], where: str = "") -> str:
    """"'opertor' is not an agent of this team; the agents are 'planner', 'operator' (did you
    mean 'operator'?)". kind: singular ("agent"); where: what the names belong to."""
    names = list(allowed)
    owner = f" {where}" if where else ""
    article = "an" if kind[:1] in "aeiou" else "a"
    return f"{bad!r} is not {article} {kind}{owner}; the {kind}s are {listed(names)}{did_you_mean(bad, names)}"
