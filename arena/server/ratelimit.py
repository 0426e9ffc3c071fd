"""Failed logins and bad tokens, counted per client address: too many within a window, and its token checks wait.

While an address is held back, every token it sends is answered 429 with Retry-After, a
right one too: otherwise the answers would still tell a right guess from a wrong one.
Browser sessions (signed cookies) are not token checks and go on working. The client's
address is the connection's, or the one a trusted reverse proxy names (arena/server/net.py).
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable

MAX_ADDRESSES = 100_000  # addresses remembered at once: a flood of fresh addresses cannot grow memory without end


class RateLimited(Exception):
    """An address sent too many failed logins or bad tokens; it may try again in retry_after seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many failed logins or bad tokens from this address; try again in {retry_after} s")
        self.retry_after = retry_after


class FailureLimiter:
    """At most `limit` failures per address within any `window_s` seconds."""

    def __init__(self, limit: int, window_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = limit
        self.window_s = window_s
        self.clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()
        self.failed = 0  # failures seen since the start (the metrics)
        self.refused = 0  # token checks answered 429

    def check(self, address: str) -> None:
        """RateLimited when the address has used up its failures of the current window."""
        with self._lock:
            recent = self._recent(address)
            if recent is not None and len(recent) >= self.limit:
                self.refused += 1
                raise RateLimited(max(1, math.ceil(recent[0] + self.window_s - self.clock())))

    def fail(self, address: str) -> None:
        """Count one failed login or bad token of the address."""
        with self._lock:
            self.failed += 1
            recent = self._recent(address)
            if recent is None:
                if len(self._failures) >= MAX_ADDRESSES:
                    self._prune()
                recent = self._failures[address] = deque(maxlen=self.limit)
            recent.append(self.clock())

    def _recent(self, address: str) -> deque[float] | None:
        """The address's failures within the window (older ones dropped), or None."""
        recent = self._failures.get(address)
        if recent is None:
            return None
        horizon = self.clock() - self.window_s
        while recent and recent[0] <= horizon:
            recent.popleft()
        if not recent:
            del self._failures[address]
            return None
        return recent

    def _prune(self) -> None:
        """Forget addresses with nothing left in the window; if still full, the longest quiet ones."""
        for address in list(self._failures):
            self._recent(address)
        if len(self._failures) >= MAX_ADDRESSES:
            newest = sorted(self._failures, key=lambda a: self._failures[a][-1])[len(self._failures) // 2:]
            self._failures = {address: self._failures[address] for address in newest}
