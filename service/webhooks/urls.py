"""Which URLs cardroom calls: checked when subscribed, and again before each attempt.

Only ``https`` (and ``http`` to a loopback address when the operator allows it,
for development). The host is resolved and *every* address it resolves to must
be public: no private, loopback, link-local (the cloud metadata address
169.254.169.254 among them), multicast, reserved or shared address, in IPv4 or
IPv6 (an IPv4-mapped IPv6 address is judged as its IPv4). The attempt then
connects to the address checked, never resolving again, so a name that
changes its answer between the check and the connection gains nothing. The
operator's deny-list refuses hosts or networks; an allow-list, when set,
admits only its hosts and networks (a network named there may be private).
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from service.errors import WebhookUrlRefused

MAX_URL: Final = 2048
Resolver = Callable[[str, int], list[str]]
"""``resolve(host, port)``: the addresses of ``host``."""
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def system_resolver(host: str, port: int) -> list[str]:
    """The system's resolver (``getaddrinfo``)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in found))


@dataclass(frozen=True, slots=True)
class Policy:
    """The operator's rules (``CARDROOM_WEBHOOK_*``)."""

    http_loopback: bool = False
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()

    @classmethod
    def parse(cls, http_loopback: bool, allow: str, deny: str) -> Policy:
        def items(text: str) -> tuple[str, ...]:
            return tuple(x.strip().lower() for x in text.split(",") if x.strip())

        return cls(http_loopback, items(allow), items(deny))


@dataclass(frozen=True, slots=True)
class Target:
    """A URL found safe, and the address to connect to."""

    url: str
    scheme: str
    host: str
    port: int
    path: str
    address: str

    @property
    def connect_url(self) -> str:
        """The URL with the address checked in place of the host name."""
        ip = ipaddress.ip_address(self.address)
        host = f"[{ip}]" if ip.version == 6 else str(ip)
        return f"{self.scheme}://{host}:{self.port}{self.path}"

    @property
    def host_header(self) -> str:
        default = 443 if self.scheme == "https" else 80
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == default else f"{host}:{self.port}"


def _address(text: str) -> IPAddress | None:
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def _in(entries: Sequence[str], host: str, ip: IPAddress) -> bool:
    """Whether ``host`` or ``ip`` is named by one of ``entries`` (host names,
    ``.suffix`` domains, addresses or networks)."""
    for entry in entries:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
            continue
        except ValueError:
            pass
        if host == entry or (entry.startswith(".") and host.endswith(entry)):
            return True
    return False


def _allowed_network(entries: Sequence[str], ip: IPAddress) -> bool:
    for entry in entries:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def check(url: str, policy: Policy, resolve: Resolver) -> Target:
    """``url`` as a :class:`Target`, or :class:`WebhookUrlRefused` saying why not."""
    if len(url) > MAX_URL:
        raise WebhookUrlRefused("malformed", f"a webhook URL has at most {MAX_URL} characters")
    try:
        parts = urlsplit(url)
        port = parts.port
        host = (parts.hostname or "").lower()
    except ValueError:
        raise WebhookUrlRefused("malformed", "the webhook URL is not a URL") from None
    if parts.scheme not in ("https", "http"):
        raise WebhookUrlRefused("scheme", "a webhook URL must be https")
    if not host or any(c.isspace() for c in url):
        raise WebhookUrlRefused("malformed", "the webhook URL has no host")
    if parts.username is not None or parts.password is not None:
        raise WebhookUrlRefused("credentials", "a webhook URL may not carry a user or password")
    port = port or (443 if parts.scheme == "https" else 80)
    literal = _address(host)
    found = [host] if literal is not None else resolve(host, port)
    addresses = [a for a in (_address(x) for x in found) if a is not None]
    if not addresses:
        raise WebhookUrlRefused("unresolvable", f"the host {host!r} does not resolve")
    for ip in addresses:
        _judge(policy, parts.scheme, host, ip)
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(url, parts.scheme, host, port, path, str(addresses[0]))


def _judge(policy: Policy, scheme: str, host: str, ip: IPAddress) -> None:
    if _in(policy.deny, host, ip):
        raise WebhookUrlRefused("denied", f"the operator does not allow calls to {host!r}")
    if policy.allow and not _in(policy.allow, host, ip):
        raise WebhookUrlRefused("not_allowed", f"{host!r} is not on the operator's allow-list")
    loopback = ip.is_loopback and policy.http_loopback
    if scheme == "http" and not loopback:
        raise WebhookUrlRefused("scheme", "a webhook URL must be https")
    if not ip.is_global and not loopback and not _allowed_network(policy.allow, ip):
        raise WebhookUrlRefused(
            "address", f"{host!r} resolves to {ip}, a private or reserved address"
        )
