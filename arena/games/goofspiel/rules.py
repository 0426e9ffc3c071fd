"""Goofspiel: each round both players bid a card at once; the higher bid takes the round's prize card.

Pure: no I/O, no clocks. Each player holds the cards 1..N; the prize deck holds 1..N too, in an
order drawn from the match seed (the game's chance) unless the setup fixes it, and kept from
the players: a seat's share of the setup leaves the deck out, and a prize is shown only when
its round begins (a referee event). Every round is a simultaneous turn: both bids are asked
for before either is shown; then the higher bid takes the prize's points, an equal one
discards the prize, and both bids are shown to both players. The higher total wins.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from arena.games.base import (
    REFEREE,
    Event,
    Game,
    IllegalMove,
    Move,
    SetupError,
    State,
    chance_rng,
    game_of_module,
    is_int,
    need_int,
    need_list,
    need_setup_map,
)

NAME = game_of_module(__name__)  # the folder's name
CARDS = 13
MAX_CARDS = 52
SETUP_KEYS = {"cards", "deck"}


class Round(State):
    """A position: both hands, the prize deck (None in a player's view: unknown), the prize shown, the points."""

    def __init__(self, cards: int, hands: list[list[int]], deck: list[int] | None, prize: int | None,
                 points: list[int], bids: list[list[int]], seed: int = 0) -> None:
        self.cards = cards
        self.hands = hands  # each seat's cards left, ascending
        self.deck = deck  # the prizes still to come, in order (the referee's; None in a player's view)
        self.prize = prize  # the prize of the round being played (None once over, or not yet shown)
        self.points = points
        self.bids = bids  # every round's [bid of seat 0, bid of seat 1]
        self.seed = seed

    def movers(self) -> list[int]:
        return [] if self.is_over() else [0, 1]

    def to_move(self) -> int | None:
        return None if self.is_over() else 0

    def legal_moves(self) -> list[Move]:
        return list(self.hands[0]) if not self.is_over() else []

    def moves_of(self, seat: int) -> list[Move]:
        return list(self.hands[seat]) if not self.is_over() and seat in (0, 1) else []

    def check_move(self, seat: int, move: Move) -> None:
        if self.is_over():
            raise IllegalMove(move, "the game is over")
        if seat not in (0, 1):
            raise IllegalMove(move, f"seat {seat} does not play")
        if not is_int(move):
            raise IllegalMove(move, "a bid is a card number")
        if move not in self.hands[seat]:
            raise IllegalMove(move, f"card {move} is not in seat {seat}'s hand "
                                    f"({', '.join(map(str, self.hands[seat]))})")

    def apply(self, move: Move) -> list[Event]:
        raise IllegalMove(move, "every round is a simultaneous turn: both bids at once (apply_turn)")

    def apply_turn(self, moves: Mapping[int, Move]) -> list[Event]:
        if set(moves) != {0, 1}:
            raise IllegalMove(dict(moves), "a round needs one bid from each seat")
        for seat in (0, 1):
            self.check_move(seat, moves[seat])
        if self.prize is None:
            raise IllegalMove(dict(moves), "no prize is shown yet")
        bids = [moves[0], moves[1]]
        for seat in (0, 1):
            self.hands[seat].remove(bids[seat])
        if bids[0] != bids[1]:  # an equal bid discards the prize
            self.points[0 if bids[0] > bids[1] else 1] += self.prize
        self.bids.append(bids)
        self.prize = None
        return self._reveal()

    def _reveal(self) -> list[Event]:
        """The next prize, shown to both (the referee's deck; a player's view waits for the event)."""
        if self.deck is None or not self.deck or not self.hands[0]:
            return []
        self.prize = self.deck.pop(0)
        return [[REFEREE, {"prize": self.prize}]]

    def apply_event(self, payload: Any) -> None:
        if not isinstance(payload, dict) or set(payload) != {"prize"} or not is_int(payload["prize"]):
            raise IllegalMove(payload, "goofspiel's referee events are {\"prize\": card}")
        if self.deck is not None and self.deck and self.deck[0] == payload["prize"] and self.prize is None:
            self.deck.pop(0)
        self.prize = payload["prize"]

    def is_over(self) -> bool:
        return not self.hands[0]

    def scores(self) -> list[float]:
        return [float(p) for p in self.points]

    def render(self) -> str:
        head = (f"round {len(self.bids) + 1} of {self.cards}, prize {self.prize}" if not self.is_over()
                else f"over after {self.cards} rounds")
        lines = [head]
        for seat in (0, 1):
            hand = " ".join(map(str, self.hands[seat])) or "-"
            lines.append(f"seat {seat}: {self.points[seat]} points; cards {hand}")
        if self.bids:
            lines.append("bids: " + " ".join(f"{a}:{b}" for a, b in self.bids))
        return "\n".join(lines)

    def to_data(self) -> dict[str, Any]:
        return {"cards": self.cards, "hands": [list(h) for h in self.hands],
                "deck": None if self.deck is None else list(self.deck), "prize": self.prize,
                "points": list(self.points), "bids": [list(b) for b in self.bids]}

    def copy(self) -> Round:
        return Round(self.cards, [list(h) for h in self.hands], None if self.deck is None else list(self.deck),
                     self.prize, list(self.points), [list(b) for b in self.bids], self.seed)


class Goofspiel(Game):
    """Goofspiel with N cards a player (13 by default): simultaneous bids, a hidden prize deck."""

    version = 1
    min_players = 2
    max_players = 2
    description = "bid a card at once for each shown prize; the higher bid takes it, a tie discards it"
    chance = True  # the prize deck's order, unless the setup fixes it
    hidden_information = True  # the deck's order is not for the players

    def validate_setup(self, setup: Mapping[str, Any], players: int = 2) -> dict[str, Any]:
        self.check_players(players)
        setup = need_setup_map(self.name, setup, SETUP_KEYS)
        cards = need_int(self.name, "cards", setup.get("cards", CARDS), 1, MAX_CARDS)
        out: dict[str, Any] = {"cards": cards}
        if "deck" in setup:
            deck = need_list(self.name, "deck", setup["deck"])
            if sorted(deck) != list(range(1, cards + 1)) or not all(is_int(c) for c in deck):
                raise SetupError(self.name, f"deck must hold the prizes 1..{cards}, each once, got {deck!r:.80}")
            out["deck"] = list(deck)
        return out

    def random_setup(self, rng: random.Random, players: int,
                     partial: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self.validate_setup(dict(partial or {}), players)

    def start(self, setup: Mapping[str, Any], players: int, seed: int) -> tuple[State, list[Event]]:
        s = self.validate_setup(setup, players)
        cards = s["cards"]
        deck = list(s["deck"]) if "deck" in s else chance_rng(seed, 0).sample(range(1, cards + 1), cards)
        state = Round(cards, [list(range(1, cards + 1)) for _ in (0, 1)], deck, None, [0, 0], [], seed)
        return state, state._reveal()

    def observe_setup(self, setup: Mapping[str, Any], seat: int) -> dict[str, Any]:
        return {key: value for key, value in setup.items() if key != "deck"}

    def start_view(self, setup: Mapping[str, Any], players: int, seat: int) -> State:
        cards = self.validate_setup(setup, players)["cards"]
        return Round(cards, [list(range(1, cards + 1)) for _ in (0, 1)], None, None, [0, 0], [])

    def state_from_data(self, data: Mapping[str, Any]) -> State:
        cards = need_int(self.name, "cards", data.get("cards"), 1, MAX_CARDS)
        deck = data.get("deck")
        return Round(cards, [list(h) for h in data["hands"]], None if deck is None else list(deck), data.get("prize"),
                     list(data["points"]), [list(b) for b in data.get("bids", [])])

    def render_move(self, move: Move) -> str:
        return f"bids {move}"

    def describe_event(self, payload: Any) -> str:
        if isinstance(payload, dict) and "prize" in payload:
            return f"the prize {payload['prize']} is shown"
        return super().describe_event(payload)


GAME = Goofspiel()
Round.game = GAME
