"""External approval requests: the rules that need no database (issue 31, docs/external-approvals.md).

What a caller may send (sizes, shapes, which URLs), and how the outcome it waits for is read
from the review's state: approved (with the arguments that may run), denied (with the reason),
revise (with the instructions), or still pending."""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from hitl_dashboard.domain.enums import Action, ConversationStatus, ToolCallStatus
from hitl_dashboard.domain.errors import InvalidInput
from hitl_dashboard.domain.hashing import canonical_json

EXTERNAL = "external"  # conversations.origin of an external request
TOOL_CALL, CONTENT = "tool_call", "content"

MAX_TITLE = 200
MAX_CONTEXT = 20_000
MAX_URL = 2000
MAX_CONTENT = 200_000
MAX_FILE_NAME = 255
MAX_JSON_BYTES = 64 * 1024  # arguments and schema, each, in canonical JSON
MAX_RESULT = 20_000
REQUEST_ID = re.compile(r"^[!-~]{1,200}$")  # printable ASCII, no spaces, as an Idempotency-Key
TOOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")

PENDING, APPROVED, DENIED, REVISE = "pending", "approved", "denied", "revise"
RAN = (ToolCallStatus.APPROVED, ToolCallStatus.EXECUTING, ToolCallStatus.EXECUTED, ToolCallStatus.FAILED)


def check_request_id(value: str) -> None:
    if not REQUEST_ID.match(value or ""):
        raise InvalidInput("request_id must be 1-200 printable ASCII characters, no spaces", "request_id")


def check_json_size(value: Any, field: str) -> None:
    if len(canonical_json(value).encode("utf-8")) > MAX_JSON_BYTES:
        raise InvalidInput(f"{field} is larger than {MAX_JSON_BYTES // 1024} KB as JSON", field)


def check_web_url(url: str, field: str) -> str:
    """An http(s) URL with a host: anything else (javascript:, data:, file:) is refused, so a link
    shown to reviewers can only open a web page."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname or len(url) > MAX_URL:
        raise InvalidInput(f"{field} must be an http(s) URL with a host, at most {MAX_URL} characters", field)
    if any(ch.isspace() or ord(ch) < 32 for ch in url):
        raise InvalidInput(f"{field} may not contain spaces or control characters", field)
    return url


def is_public_address(address: str) -> bool:
    """False for loopback, private, link-local, multicast, reserved and unspecified addresses. An
    IPv6 address that carries an IPv4 one (NAT64, 6to4, Teredo, IPv4-mapped, -compatible or
    -translated) is judged by the IPv4 address(es) it reaches: Python calls most of those ranges
    global, whatever they embed."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    embedded = embedded_ipv4(ip) if isinstance(ip, ipaddress.IPv6Address) else None
    judged: list[ipaddress.IPv4Address | ipaddress.IPv6Address] = [ip] if embedded is None else list(embedded)
    return all(one.is_global and not one.is_multicast for one in judged)


def _bits(value: int, start: int, length: int) -> int:
    """`length` bits of a 128-bit address, from bit `start` (0 = the most significant)."""
    return (value >> (128 - start - length)) & ((1 << length) - 1)


def _rfc6052(value: int, prefix: int) -> int:
    """The IPv4 address in a NAT64 address with a /prefix (RFC 6052 2.2: bits 64-71 are skipped)."""
    before = max(0, min(32, 64 - prefix))
    high = _bits(value, prefix, before) if before else 0
    low = _bits(value, 72 if prefix < 96 else 96, 32 - before)
    return (high << (32 - before)) | low


# (network, the IPv4 addresses an address in it reaches): a network may be NAT64'd at any of its
# RFC 6052 prefix lengths, so every placement of the local-use prefix is judged.
_EMBEDDING: tuple[tuple[ipaddress.IPv6Network, tuple[int, ...]], ...] = (
    (ipaddress.IPv6Network("64:ff9b::/96"), (96,)),  # NAT64, well-known prefix (RFC 6052)
    (ipaddress.IPv6Network("64:ff9b:1::/48"), (48, 56, 64, 96)),  # NAT64, local use (RFC 8215)
    (ipaddress.IPv6Network("::ffff:0:0/96"), (96,)),  # IPv4-mapped
    (ipaddress.IPv6Network("::ffff:0:0:0/96"), (96,)),  # IPv4-translated (SIIT, RFC 2765)
    (ipaddress.IPv6Network("::/96"), (96,)),  # IPv4-compatible (deprecated, still routed by some stacks)
)


def embedded_ipv4(ip: ipaddress.IPv6Address) -> tuple[ipaddress.IPv4Address, ...] | None:
    """The IPv4 addresses an IPv6 address carries, or None if it is in no such range."""
    if ip.sixtofour is not None:  # 2002::/16, 6to4
        return (ip.sixtofour,)
    if ip.teredo is not None:  # 2001::/32: the server, and the client (XOR'd in the last 32 bits)
        return ip.teredo
    value = int(ip)
    for network, prefixes in _EMBEDDING:
        if ip in network:
            return tuple(ipaddress.IPv4Address(_rfc6052(value, p)) for p in prefixes)
    return None


@dataclass(frozen=True)
class LastDecision:
    action: str
    reason: str | None
    instructions: str | None
    reviewer: str


@dataclass(frozen=True)
class ExternalOutcome:
    status: str  # pending | approved | denied | revise
    arguments: dict | None = None  # approved tool calls: what may run (the reviewer's edits included)
    reason: str | None = None  # denied
    instructions: str | None = None  # revise
    decided_by: str | None = None

    @property
    def decided(self) -> bool:
        return self.status != PENDING


def outcome_of(*, kind: str, conversation_status: str, status_reason: str | None, call_status: str | None,
               approved_arguments: dict | None, decision: LastDecision | None) -> ExternalOutcome:
    """The answer a caller gets, from the state the one decision path left behind."""
    by = decision.reviewer if decision else None
    if kind == TOOL_CALL and call_status in RAN:
        return ExternalOutcome(APPROVED, arguments=approved_arguments, decided_by=by)
    if kind == CONTENT and conversation_status == ConversationStatus.APPROVED:
        return ExternalOutcome(APPROVED, decided_by=by)
    closed = conversation_status == ConversationStatus.ABORTED or call_status == ToolCallStatus.DENIED
    if not closed:
        return ExternalOutcome(PENDING)
    if decision is not None and decision.action == Action.REVISE and (decision.instructions or "").strip():
        return ExternalOutcome(REVISE, instructions=decision.instructions, decided_by=by)
    reason = (decision.reason or decision.instructions) if decision else None
    return ExternalOutcome(DENIED, reason=reason or status_reason or "denied", decided_by=by)
