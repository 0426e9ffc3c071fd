"""Who is on the other end of a request: the client's address (behind a trusted proxy or not), its network, if local.

`X-Forwarded-For` and `X-Forwarded-Proto` are believed only from the addresses of the
config's `server.trusted_proxies` (uvicorn's ProxyHeadersMiddleware then takes the client
from the right end of `X-Forwarded-For`, where the proxy wrote it); from anyone else they
are ignored, so an entrant cannot pick the address its failed logins are counted against.
The connection's own address is kept beside it: "this machine" is a loopback connection
that no proxy forwarded.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the helpers work without the server extra
    from starlette.requests import Request

PEER_KEY = "arena.peer"  # the scope key of the connection's own address
FORWARDING_HEADERS = (b"x-forwarded-for", b"x-forwarded-proto", b"forwarded", b"x-real-ip")


class ConnectionMiddleware:
    """Keeps the connection's address before a proxy's headers replace it; marks every answer no-store.

    The pages differ by viewer (an owner sees its bots' output): no shared cache may keep one.
    """

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        scope[PEER_KEY] = (scope.get("client") or ("", 0))[0]

        async def send_private(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                if not any(name.lower() == b"cache-control" for name, _ in headers):
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_private)


def client_address(request: Request) -> str:
    """The client's address (as a trusted proxy names it, else the connection's)."""
    return request.client.host if request.client is not None else "unknown"


def network_of(address: str, ipv4_prefix: int = 32, ipv6_prefix: int = 64) -> str:
    """The network an address is counted in: its IPv4 /ipv4_prefix or IPv6 /ipv6_prefix (anything else alone).

    An IPv4 address written as IPv6 (::ffff:a.b.c.d, from a dual-stack socket) counts as the IPv4 one.
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv4Address):
        return str(ipaddress.IPv4Network((int(ip), ipv4_prefix), strict=False))
    return str(ipaddress.IPv6Network((int(ip), ipv6_prefix), strict=False))  # int(): a zone (%eth0) is no network


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def _trusted(address: str, proxies: tuple[str, ...]) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


def from_this_machine(request: Request, proxies: tuple[str, ...]) -> bool:
    """True for a request made on the server's machine: a loopback client that no unknown proxy forwarded.

    A request through a trusted proxy counts by the address the proxy names (it must name one); a
    loopback connection carrying forwarding headers from a proxy the config does not name is
    someone else's request passed on, whoever they are.
    """
    if not _loopback(client_address(request)):
        return False
    headers = {name for name, _ in request.scope.get("headers", [])}
    if not headers & set(FORWARDING_HEADERS):
        return True
    return _trusted(str(request.scope.get(PEER_KEY, "")), proxies) and b"x-forwarded-for" in headers
