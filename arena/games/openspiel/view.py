"""The terminal view of OpenSpiel's games for `arena play`: OpenSpiel's own text, actions by their names."""

from __future__ import annotations

from arena.games import Move, State
from arena.kit.terminal import View

from .rules import Knowledge, Position

SHOWN = 16  # legal actions listed in a hint


def labels(state: State, seat: int) -> dict[int, str]:
    """The legal actions of seat with their action strings (a seat's view: those it was sent)."""
    if isinstance(state, Position):
        return {a: str(state.state.action_to_string(seat, a)) for a in state.moves_of(seat)}
    if isinstance(state, Knowledge) and state.record and isinstance(state.record[-1], dict):
        last = state.record[-1]
        return dict(zip(last.get("legal", []), last.get("labels", [])))
    return {}


class OpenSpielView(View):
    """OpenSpiel's text of the position; a move is typed as an action's number or its name."""

    prompt = "Your action (its number or its name): "

    def intro(self, state: State) -> str:
        return (f"{self.game.description}.\nA move is one of OpenSpiel's actions: type its number or its name "
                "(? lists them).")

    def _mover(self, state: State) -> int:
        movers = [seat for seat in state.movers() if seat in self.humans] or state.movers() or [0]
        return movers[0]

    def parse(self, text: str, state: State) -> tuple[Move, str | None]:
        named = labels(state, self._mover(state))
        typed = text.strip()
        for action, label in named.items():
            if typed == str(action) or typed.lower() == label.lower():
                return action, None
        return None, f"{typed!r} is not a legal action. {self.move_format(state)}"

    def move_format(self, state: State) -> str:
        named = labels(state, self._mover(state))
        shown = "; ".join(f"{action} = {label}" for action, label in list(named.items())[:SHOWN])
        more = f" ({len(named) - SHOWN} more)" if len(named) > SHOWN else ""
        return f"Legal actions: {shown}{more}." if named else ""

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        if seat in self.humans:
            return None
        if isinstance(before, Position) and not self.game.hidden_information:
            return f"{self.name(seat)} played {before.state.action_to_string(seat, move)} ({move})."
        return f"{self.name(seat)} moved."  # in a hidden game another's action is not for the person to see


VIEW = OpenSpielView
