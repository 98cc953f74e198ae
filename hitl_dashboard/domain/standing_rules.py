"""Standing rules (issue 42): "approve (or deny) <tool> calls of team T automatically when <a rule on
the arguments>". Pure rules: states and their transitions, who may make and promote a rule, what a
rule would do with a call, and whether a person's decision agrees with it. No I/O.

The conditions are the team file's `when` rules (teams/model.ApprovalRule: the same operators,
refused the same way); every condition must hold. Unlike a team file's rule, which fails closed by
making a call wait, a standing rule fails closed by deciding nothing: a call without the argument a
condition names is left to a person."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, Final

from hitl_dashboard.domain.enums import Action, Role
from hitl_dashboard.domain.errors import Conflict, InvalidInput, PermissionDenied


class RuleState(StrEnum):
    SHADOW = "shadow"  # decides nothing; records what it would have done beside what people did
    ACTIVE = "active"
    PAUSED = "paused"
    EXPIRED = "expired"
    REVOKED = "revoked"


class RuleEffect(StrEnum):
    APPROVE = "approve"
    DENY = "deny"


LIVE_STATES: Final = (RuleState.SHADOW, RuleState.ACTIVE)  # the states read at decision time
FINAL_STATES: Final = (RuleState.EXPIRED, RuleState.REVOKED)
DEFAULT_EXPIRY_DAYS: Final = 30
MAX_EXPIRY_DAYS: Final = 365
# Tool-call approvals, and content sign-offs bound to a hash only where the team file allows the gate
# (TaskTypeDef.rules_may_sign_off, checked where the rule decides).
DECIDABLE_KINDS: Final = ("tool_call", "signoff")
RULE_ACTOR_PREFIX: Final = "rule:"  # never a username (usernames take no ':')


def rule_actor_name(rule_id: int) -> str:
    """What the audit trail, the webhooks and the analytics name a rule's decision by."""
    return f"{RULE_ACTOR_PREFIX}{rule_id}"


@dataclass(frozen=True)
class RuleSettings:
    """Per workspace: candidates need `min_approvals` unchanged approvals over `window_days`; a rule
    becomes active after `min_agreements` shadow agreements (K) and no disagreement."""

    min_approvals: int = 20
    window_days: int = 14
    min_agreements: int = 10


def condition_holds(condition: Any, arguments: Mapping[str, Any]) -> bool:
    """condition: a teams.model.ApprovalRule. A call without the argument is not matched (a rule
    never decides a call it cannot judge)."""
    return condition.argument in arguments and condition.matches(dict(arguments))


def rule_matches(conditions: tuple[Any, ...], arguments: Mapping[str, Any]) -> bool:
    """Every condition holds (a rule with none matches nothing)."""
    if not conditions:
        return False
    for condition in conditions:
        if condition.argument not in arguments or not condition.matches(arguments):
            return False
    return True


def _key(argument: str, value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # 2.0 == 2, as the rule compares
    text = json.dumps([argument, value], sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def rule_key(conditions: list[dict[str, Any]]) -> str:
    """The key a rule is found by: its first `equals` condition's (argument, value); "" when it has
    none (then it is read for every call of its tool). Only narrows the read: the conditions decide."""
    for condition in conditions:
        if "equals" in condition and isinstance(condition["equals"], str | int | float | bool):
            return _key(condition["argument"], condition["equals"])
    return ""


def call_keys(arguments: Mapping[str, Any]) -> list[str]:
    """The keys of the rules that may match a call with these arguments (and "": rules with no key)."""
    return ["", *(_key(k, v) for k, v in arguments.items() if isinstance(v, str | int | float | bool))]


def agrees(effect: str, human_action: str, edited: bool) -> bool:
    """Whether a person's decision on a call the rule matches is the one the rule would have made."""
    if effect == RuleEffect.APPROVE:
        return human_action == Action.APPROVE and not edited
    return human_action != Action.APPROVE


def may_author(roles: frozenset[str], deciding_role: str) -> bool:
    """Make, promote, pause: the role that decides those calls, or a workspace admin (or the instance admin)."""
    return bool(roles & {deciding_role, Role.WORKSPACE_ADMIN.value, Role.ADMIN.value})


def is_workspace_admin(roles: frozenset[str]) -> bool:
    return bool(roles & {Role.WORKSPACE_ADMIN.value, Role.ADMIN.value})


def check_may_author(username: str, roles: frozenset[str], deciding_role: str, what: str) -> None:
    if not may_author(roles, deciding_role):
        raise PermissionDenied(f"{username} may not {what}: needs role {deciding_role} (the role that decides "
                               "these calls) or workspace_admin")


def check_promotion(*, username: str, user_id: int, roles: frozenset[str], deciding_role: str, owner_id: int,
                    state: str, agreements: int, disagreements: int, needed: int,
                    override_reason: str | None) -> bool:
    """Raises unless this person may make the rule active now. Returns True when it is an admin's
    override of the evidence threshold (K agreements, no disagreement)."""
    check_may_author(username, roles, deciding_role, "make a standing rule active")
    if user_id == owner_id:
        raise PermissionDenied(f"{username} made this rule and may not make it active: another person "
                               f"holding {deciding_role} or a workspace admin must (four eyes)")
    if state not in (RuleState.SHADOW, RuleState.PAUSED):
        raise Conflict(f"the rule is {state}; only a rule in shadow or paused can be made active")
    enough = agreements >= needed and disagreements == 0
    if enough:
        return False
    why = (f"it has {agreements} agreement(s) and {disagreements} disagreement(s) in shadow; "
           f"it needs {needed} and none")
    if not is_workspace_admin(roles):
        raise Conflict(f"the rule cannot be made active yet: {why} (a workspace admin may override with a reason)")
    if not (override_reason or "").strip():
        raise InvalidInput(f"{why}: a workspace admin's override needs a reason", "override_reason")
    return True


def check_transition(state: str, to: RuleState) -> None:
    if state in FINAL_STATES:
        raise Conflict(f"the rule is {state}: it can no longer change")
    if to == RuleState.PAUSED and state not in LIVE_STATES:
        raise Conflict(f"the rule is {state}; only a rule in shadow or active can be paused")


def expired(expires_at: datetime, now: datetime) -> bool:
    return expires_at <= now
