"""Failed logins and bad tokens, counted per client network: too many within a window, and its token checks wait.

While a network is held back, every token sent from it is answered 429 with Retry-After, a
right one too: otherwise the answers would still tell a right guess from a wrong one.
Browser sessions (signed cookies) are not token checks and go on working. The client's
address is the connection's, or the one a trusted reverse proxy names, and it counts in its
network (an IPv4 /32, an IPv6 /64 by default: arena/server/web/net.py), since a host given an
IPv6 /64 can send each guess from a fresh address of it.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

MAX_NETWORKS = 100_000  # networks remembered at once: a flood of fresh ones cannot grow memory without end


class RateLimited(Exception):
    """A network sent too many failed logins or bad tokens; it may try again in retry_after seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many failed logins or bad tokens from this network; try again in {retry_after} s")
        self.retry_after = retry_after


class FailureLimiter:
    """At most `limit` failures per network within any `window_s` seconds."""

    def __init__(self, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self.failed = 0  # failures seen since the start (the metrics)
        self.refused = 0  # token checks answered 429

    def check(self, network: str) -> None:
        """RateLimited when the network has used up its failures of the current window."""
        with self._lock:
            recent = self._recent(network)
            if recent is not None and len(recent) >= self.limit:
                self.refused += 1
                raise RateLimited(max(1, math.ceil(recent[0] + self.window_s - self.clock())))

    def fail(self, network: str) -> None:
        """Count one failed login or bad token of the network."""
        with self._lock:
            self.failed += 1
            recent = self._recent(network)
            if recent is None:
                if len(self._failures) >= MAX_NETWORKS:
                    self._prune()
                recent = self._failures[network] = deque(maxlen=self.limit)
            recent.append(self.clock())

    def _recent(self, network: str) -> deque[float] | None:
        """The network's failures within the window (older ones dropped), or None."""
        recent = self._failures.get(network)
        if recent is None:
            return None
        horizon = self.clock() - self.window_s
        while recent and recent[0] <= horizon:
            recent.popleft()
        if not recent:
            del self._failures[network]
            return None
        return recent

    def _prune(self) -> None:
        """Forget networks with nothing left in the window; if still full, the longest quiet ones."""
        for network in list(self._failures):
            self._recent(network)
        if len(self._failures) >= MAX_NETWORKS:
            newest = sorted(self._failures, key=lambda a: self._failures[a][-1])[len(self._failures) // 2:]
            self._failures = {network: self._failures[network] for network in newest}
