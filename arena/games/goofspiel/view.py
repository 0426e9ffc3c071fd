"""The terminal view of Goofspiel for `arena play`: the prize shown, your cards, the other's, the points."""

from __future__ import annotations

from arena.games import Move, State
from arena.kit.terminal import SEAT_STYLES, View, numbers

from .rules import Round

PROMPT = "Your bid (a card of your hand): "


class GoofspielView(View):
    """The round's prize, both hands and the points; a move is one card of your hand."""

    prompt = PROMPT

    def intro(self, state: State) -> str:
        assert isinstance(state, Round)
        return (f"Goofspiel with {state.cards} cards: each round a prize card is shown and both players bid one "
                "card of their hand at once.\nThe higher bid takes the prize's points; equal bids discard it. "
                "Bids are shown once both are in. The higher total wins.")

    def board(self, state: State, last: tuple[int, Move] | None = None) -> str:
        assert isinstance(state, Round)
        lines = []
        if state.bids:
            a, b = state.bids[-1]
            lines.append(f"last round: {self.name(0)} bid {a}, {self.name(1)} bid {b}")
        prize = "-" if state.prize is None else self.term.paint(str(state.prize), "bold", "yellow")
        lines.append(f"round {min(len(state.bids) + 1, state.cards)} of {state.cards}, prize {prize}")
        for seat in (0, 1):
            hand = " ".join(str(card) for card in state.hands[seat]) or "-"
            points = self.term.paint(f"{state.points[seat]:>3}", "bold", SEAT_STYLES[seat])
            lines.append(f"{self.name(seat)}: {points} points; cards {hand}")
        if state.deck is not None:  # the whole truth (a spectator's): a player's view never holds the deck
            lines.append("prizes to come, in order: " + (" ".join(map(str, state.deck)) or "-"))
        return "\n".join(lines)

    def parse(self, text: str, state: State) -> tuple[Move, str | None]:
        assert isinstance(state, Round)
        # The person typing: the seat asked now (the hot seat changes it every turn), else the only person.
        seat = self.mover if self.mover is not None else min(self.humans) if self.humans else 0
        values = numbers(text)
        if values is None or len(values) != 1:
            return None, "Type one card of your hand, e.g. " + str(state.hands[seat][-1]) + "."
        if values[0] not in state.hands[seat]:
            return None, f"{values[0]} is not in your hand ({' '.join(map(str, state.hands[seat]))})."
        return values[0], None

    def announce(self, seat: int, move: Move, before: State, after: State) -> str | None:
        return None  # a bid is shown with the other's once the round is over (the board's first line)


VIEW = GoofspielView
