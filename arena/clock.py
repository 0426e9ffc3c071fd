"""Match clocks: a budget for the whole match per seat, increments, a per-move cap, a margin.

The margin is one reserve per seat and match (protocol/SPEC.md section 5): what a reply takes
beyond the `time_left_ms` it was sent is taken from it and never comes back, and every
request's deadline is its allowance plus the margin left. So a seat whose budget is spent
loses on time at its next reply that is not (nearly) instant.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum
from typing import Any


class ClockMode(StrEnum):
    """What a seat's clock charges."""

    WALL = "wall"  # elapsed time from request to reply
    CPU = "cpu"  # CPU time of the bot's processes, with a wall cap


class ClockError(ValueError):
    """Clock settings out of range."""


@dataclass(frozen=True)
class ClockSettings:
    """How every seat's clock runs (all times in milliseconds)."""

    budget_ms: int = 10_000
    increment_ms: int = 0
    move_cap_ms: int | None = None  # at most this much per move, whatever the budget left
    margin_ms: int = 200  # one reserve per seat and match for replies past their time_left_ms
    startup_ms: int = 10_000  # launch to hello; not charged
    mode: ClockMode = ClockMode.WALL
    wall_factor: float = 3.0  # in cpu mode: the wall cap is this times the CPU time left

    def __post_init__(self) -> None:
        for name in ("budget_ms", "increment_ms", "margin_ms", "startup_ms"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ClockError(f"{name} must be a non-negative integer, got {value!r}")
        if self.budget_ms == 0:
            raise ClockError("budget_ms must be positive")
        if self.move_cap_ms is not None and (not isinstance(self.move_cap_ms, int) or self.move_cap_ms <= 0):
            raise ClockError(f"move_cap_ms must be a positive integer, got {self.move_cap_ms!r}")
        try:
            object.__setattr__(self, "mode", ClockMode(self.mode))
        except ValueError:
            raise ClockError(f"mode must be 'wall' or 'cpu', got {self.mode!r}") from None

    def to_data(self) -> dict[str, Any]:
        """Plain data for logs and results."""
        # Flat scalars: no deep copy needed (asdict's costs a referee every match header).
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["mode"] = str(self.mode)
        return data


class SeatClock:
    """The clock of one seat in one match: the budget left and the margin left."""

    __slots__ = ("_left", "_margin", "settings")

    def __init__(self, settings: ClockSettings, left_ms: float | None = None,
                 margin_ms: float | None = None) -> None:
        self.settings = settings
        self._left = float(settings.budget_ms if left_ms is None else left_ms)
        self._margin = float(settings.margin_ms if margin_ms is None else margin_ms)

    @property
    def left_ms(self) -> float:
        """The time the seat has left."""
        return self._left

    @property
    def margin_ms(self) -> float:
        """What is left of the seat's margin (the reserve for replies past their allowance)."""
        return self._margin

    def run_out(self) -> None:
        """The seat overran its deadline: nothing is left."""
        self._left = 0.0
        self._margin = 0.0

    def allowance_ms(self) -> int:
        """The time the seat may use for the request about to be sent (its `time_left_ms`)."""
        allowed = self._left
        if self.settings.move_cap_ms is not None:
            allowed = min(allowed, self.settings.move_cap_ms)
        return int(allowed)

    def deadline_after(self, sent: float) -> float:
        """The absolute monotonic deadline (seconds) for a request sent at `sent`: allowance + margin left."""
        return sent + (self.allowance_ms() + self._margin) / 1000.0

    def wall_cap_after(self, sent: float) -> float:
        """In cpu mode, the wall-clock deadline of a request sent at `sent`: allowance x wall_factor + margin left."""
        return sent + (self.allowance_ms() * self.settings.wall_factor + self._margin) / 1000.0

    def margin_record(self) -> dict[str, float]:
        """The `margin` a log record of the seat carries (protocol/LOGS.md): present once overruns took some."""
        return {"margin": round(self._margin, 3)} if self._margin < self.settings.margin_ms else {}

    def charge(self, used_ms: float, is_move: bool) -> None:
        """Charge the time a reply took; what it took past its allowance comes out of the margin for good."""
        # Kept to the microsecond, as logs record them: a replay derives the same time_left_ms
        # (9846.9996 would be sent as 9846 but logged as 9847.0) and the same margin.
        overrun = used_ms - self.allowance_ms()
        if overrun > 0:
            self._margin = round(max(0.0, self._margin - overrun), 3)
        self._left = round(max(0.0, self._left - used_ms), 3)
        if is_move:
            self._left += self.settings.increment_ms
