"""The product's roles from an identity provider's claim (single sign-on).

The mapping names provider groups (or any claim values) and the roles each grants. Roles come
only from the mapping: a value nobody mapped grants nothing, and the roles are computed afresh at
every sign-in, so a group removed at the provider removes its role at the next one."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def claim_values(claim: object) -> list[str]:
    """A claim as a list of strings: providers send a list, a single string, or a space- or
    comma-separated string (some map groups into one attribute). Anything else counts as none."""
    if isinstance(claim, str):
        return [part for part in claim.replace(",", " ").split() if part]
    if isinstance(claim, list | tuple):
        return [item for item in claim if isinstance(item, str) and item]
    return []


def roles_from_claim(claim: object, role_map: Mapping[str, Iterable[str]]) -> list[str]:
    """The sorted roles the claim's values map to (no duplicates)."""
    roles: set[str] = set()
    for value in claim_values(claim):
        roles.update(role_map.get(value, ()))
    return sorted(roles)
