"""The server's guards as plain functions: the failure limit, what the public reads, this machine, the draws."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from starlette.requests import Request

from arena.server.engine.draws import draw_setup, game_seed, validation_setups
from arena.server.state.config import origin_of, server_config_from_data
from arena.server.web import ratelimit
from arena.server.web.net import PEER_KEY, from_this_machine, network_of
from arena.server.web.origin import cross_origin
from arena.server.web.privacy import game_detail, version_detail
from arena.server.web.ratelimit import FailureLimiter, RateLimited


class Clock:
    """A clock the test moves."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_an_address_past_its_failures_waits_for_the_window_and_others_do_not() -> None:
    clock = Clock()
    limiter = FailureLimiter(3, 60, clock)
    for _ in range(3):
        limiter.check("a")
        limiter.fail("a")
        clock.now += 10
    with pytest.raises(RateLimited) as held:
        limiter.check("a")
    assert held.value.retry_after == 30  # the first failure (at 1000) leaves the window at 1060; now 1030
    limiter.check("b")
    clock.now += 30
    limiter.check("a")  # one failure has left the window: one more try
    limiter.fail("a")
    with pytest.raises(RateLimited):
        limiter.check("a")
    clock.now += 61
    limiter.check("a")
    assert limiter.failed == 4 and limiter.refused == 2


def test_a_flood_of_fresh_addresses_does_not_grow_the_limiter_without_end(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ratelimit, "MAX_NETWORKS", 100)
    clock = Clock()
    limiter = FailureLimiter(2, 60, clock)
    for number in range(1000):
        clock.now += 0.001
        limiter.fail(f"10.0.{number // 256}.{number % 256}")
    assert len(limiter._failures) <= 100
    limiter.fail("10.0.3.231")
    limiter.fail("10.0.3.231")
    with pytest.raises(RateLimited):
        limiter.check("10.0.3.231")


def test_failures_count_per_network_ipv4_by_address_ipv6_by_64() -> None:
    assert network_of("198.51.100.7") == "198.51.100.7/32"
    assert network_of("::ffff:198.51.100.7") == "198.51.100.7/32"  # IPv4 on a dual-stack socket
    assert network_of("2001:db8:1:2::1") == network_of("2001:db8:1:2:ffff:ffff:ffff:ffff") == "2001:db8:1:2::/64"
    assert network_of("2001:db8:1:3::1") == "2001:db8:1:3::/64"
    assert network_of("fe80::1%eth0") == "fe80::/64"
    assert network_of("198.51.100.7", ipv4_prefix=24) == "198.51.100.0/24"
    assert network_of("2001:db8:1:2::1", ipv6_prefix=48) == "2001:db8:1::/48"
    assert network_of("unknown") == "unknown"  # not an IP (a Unix socket): counted alone


def test_rotating_addresses_within_an_ipv6_64_is_held_back_and_the_next_64_is_not() -> None:
    import ipaddress
    import random

    clock = Clock()
    limiter = FailureLimiter(20, 60, clock)
    draw = random.Random(36)
    for _ in range(20):  # every guess from a fresh address of one /64
        address = str(ipaddress.IPv6Address(0x2001_0DB8_0001_0002 << 64 | draw.getrandbits(64)))
        network = network_of(address)
        assert network == "2001:db8:1:2::/64"
        limiter.check(network)
        limiter.fail(network)
        clock.now += 1
    with pytest.raises(RateLimited):
        limiter.check(network_of("2001:db8:1:2:dead:beef:0:1"))
    limiter.check(network_of("2001:db8:1:3::1"))  # the neighbouring /64 is someone else


@pytest.mark.parametrize("status, detail, shown", [
    ("active", "on the ladder", "on the ladder"),
    ("retired", "replaced by version 3", "replaced by version 3"),
    ("disabled", "disabled: 12 failures in 40 games (last: crash)", "disabled: 12 failures in 40 games (last: crash)"),
    ("disabled", "disabled: cannot be started: /srv/contest/submissions/ann/v2/bot: no such file", "disabled"),
    ("failed", "build failed: the command exited with status 2", "build failed: the command exited with status 2"),
    ("failed", "the upload cannot be read: [Errno 2] /srv/contest/submissions/ann/v2/upload/x.py", "the build failed"),
    ("rejected", "rejected: the bot cannot be started: ./mybot --secret-flag: not found", "rejected in validation"),
    ("queued", "waiting to be tried again: the build could not start: /srv/x", "waiting for its build"),
])
def test_a_versions_detail_is_public_only_when_the_server_wrote_all_of_it(status: str, detail: str,
                                                                         shown: str) -> None:
    assert version_detail(status, detail, private=False) == shown
    assert version_detail(status, detail, private=True) == detail


def test_a_games_failure_detail_is_its_offenders_owners() -> None:
    crash = "bot process exited with status 1 (my secret weights)"
    assert game_detail("done", "crash", 1, 12, crash, {1}) == crash
    assert game_detail("done", "crash", 1, 12, crash, None) == crash  # the admin
    assert game_detail("done", "crash", 1, 12, crash, {0}) == "crashed after 12 plies"  # the opponent
    assert game_detail("done", "protocol", 0, 0, 'bad frame "secret"', set()) == \
        "broke the protocol before the first move"
    assert game_detail("done", "timeout", 0, 1, "no move within 100 ms", set()) == "ran out of time after 1 ply"
    assert game_detail("void", "", None, 0, "system fault, 3 tries: OSError: /srv/contest/ladder", set()) == \
        "system fault, 3 tries"
    assert game_detail("void", "", None, 0, "not played: a version left the ladder before the game began", set()) \
        == "not played: a version left the ladder before the game began"


def request(peer: str, client: str, headers: dict[str, str]) -> Request:
    scope: dict[str, Any] = {"type": "http", "method": "GET", "path": "/metrics", "query_string": b"",
                             "client": (client, 1), PEER_KEY: peer,
                             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    return Request(scope)


def test_this_machine_is_a_loopback_client_that_no_unknown_proxy_forwarded() -> None:
    proxies = ("127.0.0.1",)
    assert from_this_machine(request("127.0.0.1", "127.0.0.1", {}), ())
    assert from_this_machine(request("::1", "::1", {}), ())
    assert not from_this_machine(request("192.0.2.4", "192.0.2.4", {}), proxies)
    # Through the trusted proxy, the client is the one it names.
    assert not from_this_machine(request("127.0.0.1", "203.0.113.9", {"X-Forwarded-For": "203.0.113.9"}), proxies)
    assert from_this_machine(request("127.0.0.1", "127.0.0.1", {"X-Forwarded-For": "127.0.0.1"}), proxies)
    # A proxy the config does not know, or one that names nobody: someone else's request.
    assert not from_this_machine(request("127.0.0.1", "127.0.0.1", {"X-Forwarded-For": "203.0.113.9"}), ())
    assert not from_this_machine(request("127.0.0.1", "127.0.0.1", {"X-Forwarded-Proto": "https"}), proxies)


def posted(headers: dict[str, str], scheme: str = "http") -> Request:
    scope: dict[str, Any] = {"type": "http", "method": "POST", "path": "/submit", "query_string": b"",
                             "scheme": scheme, "server": ("127.0.0.1", 8000), "client": ("127.0.0.1", 1),
                             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    return Request(scope)


def test_origins_are_compared_by_scheme_host_and_port() -> None:
    assert origin_of("HTTP://Contest.Example.org:80/x?y") == "http://contest.example.org"
    assert origin_of("https://contest.example.org:443") == "https://contest.example.org"
    assert origin_of("https://contest.example.org:8443") == "https://contest.example.org:8443"
    assert origin_of("http://[::1]:8000/") == "http://[::1]:8000"
    for nothing in ("null", "", "file:///etc/passwd", "http://", "http://a:99999", "javascript:alert(1)",
                    "http://user@evil.example@contest.example.org"):
        assert origin_of(nothing) is None, nothing


@pytest.mark.parametrize("headers, scheme, trusted, refused", [
    ({"Host": "127.0.0.1:8000"}, "http", (), False),  # no sign of a page: a script with its token
    ({"Host": "127.0.0.1:8000", "Origin": "http://127.0.0.1:8000"}, "http", (), False),
    ({"Host": "127.0.0.1:8000", "Origin": "http://127.0.0.1:8000", "Sec-Fetch-Site": "same-origin"}, "http", (), False),
    ({"Host": "127.0.0.1:8000", "Sec-Fetch-Site": "none"}, "http", (), False),  # a typed address or bookmark
    ({"Host": "127.0.0.1:8000", "Referer": "http://127.0.0.1:8000/entrants/ada"}, "http", (), False),
    ({"Host": "127.0.0.1:8000", "Origin": "http://127.0.0.1:8001"}, "http", (), True),  # the same site, not origin
    ({"Host": "127.0.0.1:8000", "Origin": "http://evil.example"}, "http", (), True),
    ({"Host": "127.0.0.1:8000", "Origin": "null"}, "http", (), True),  # a sandboxed frame, a data: page
    ({"Host": "127.0.0.1:8000", "Sec-Fetch-Site": "cross-site"}, "http", (), True),
    ({"Host": "127.0.0.1:8000", "Sec-Fetch-Site": "same-site"}, "http", (), True),
    ({"Host": "127.0.0.1:8000", "Referer": "http://evil.example/"}, "http", (), True),
    ({"Host": "127.0.0.1:8000", "Referer": "http://127.0.0.1:8000/", "Origin": "http://evil.example"}, "http", (),
     True),
    ({"Origin": "http://127.0.0.1:8000"}, "http", (), True),  # no Host: nothing is the server's own origin
    # Behind an HTTPS proxy that keeps Host: the scheme is the one the proxy says (scope["scheme"]).
    ({"Host": "contest.example.org", "Origin": "https://contest.example.org"}, "https", (), False),
    ({"Host": "contest.example.org", "Origin": "http://contest.example.org"}, "https", (), True),
    # A proxy that rewrites Host: refused until the site's address is trusted.
    ({"Host": "127.0.0.1:8000", "Origin": "https://contest.example.org"}, "http", (), True),
    ({"Host": "127.0.0.1:8000", "Origin": "https://contest.example.org"}, "http", ("https://contest.example.org",),
     False),
    ({"Host": "127.0.0.1:8000", "Origin": "https://evil.example"}, "http", ("https://contest.example.org",), True),
])
def test_a_change_is_refused_when_any_sign_says_another_origin_sent_it(
        headers: dict[str, str], scheme: str, trusted: tuple[str, ...], refused: bool) -> None:
    why = cross_origin(posted(headers, scheme), trusted)
    assert bool(why) == refused, why
    assert "\n" not in why


def test_validation_draws_its_setups_as_the_ladder_does(tmp_path: Path) -> None:
    config = server_config_from_data({"game": "blocking", "sandbox": "none", "setups": {"random": {"count": 4}}},
                                     tmp_path, insecure=True)
    drawn = Counter(i for number in range(4000) for i in validation_setups(config, "secret", number, 1))
    assert set(drawn) == {0, 1, 2, 3} and all(800 < n < 1200 for n in drawn.values()), drawn  # uniform, as the ladder's
    assert validation_setups(config, "secret", 7, 3) == validation_setups(config, "secret", 7, 3)  # a retry repeats
    assert validation_setups(config, "other", 7, 30) != validation_setups(config, "secret", 7, 30)
    import random

    ladder = Counter(draw_setup(config, random.Random(n)) for n in range(4000))
    assert set(ladder) == {0, 1, 2, 3}
    # Seeds: one derivation for every game, unpredictable without the server's secret.
    assert game_seed(config, "secret", "ladder", 5) != game_seed(config, "other", "ladder", 5)
    assert game_seed(config, "secret", "ladder", 5) == game_seed(config, "secret", "ladder", 5)
