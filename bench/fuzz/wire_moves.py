"""Fuzz target: the `move` field of a bot's reply, as each game's rules read it (State.apply).

In a simultaneous turn the move is the first mover's, checked as the referee checks it
(State.check_move) and played with the other movers' first legal moves (State.apply_turn).

The first byte picks a position (every game, at a few plies of a seeded game); the rest is the
msgpack value of the move, decoded as the referee decodes a bot's frame. The rules must take
the move or refuse it with a one-line GameError (the referee turns that into `illegal`);
anything else would escape the referee. A move taken packs again, as do its events, and the
position still round-trips through to_data.
"""

from __future__ import annotations

import random
from typing import Any

import harness

with harness.instrument(__name__):
    from arena.games import GameError, State, game_names, get_game
    from arena.games.seats import play_turn, random_turn
    from arena.setups import complete_setup
    from protocol.codec import ProtocolError, decode, encode

    GAMES = game_names()  # imports every game's module, in the block: their rules are what is fuzzed

PLIES = (0, 3, 12)
MEMORY_PER_BYTE = 256
MEMORY_BASE = 4 << 20  # a move may make a game build a board or a tree of its own size


def _positions() -> list[tuple[str, dict[str, Any]]]:
    """(game, state data) for every game at each of PLIES, by moves drawn from a fixed seed."""
    found = []
    for name in GAMES:
        game = get_game(name)
        players = max(game.min_players, min(2, game.max_players))
        state, _ = game.start(complete_setup(game, {}, players, 7), players, 7)
        rng = random.Random(name)
        for ply in range(max(PLIES) + 1):
            if ply in PLIES:
                found.append((name, state.to_data()))
            if state.is_over():
                break
            play_turn(state, random_turn(state, rng))
    return found


POSITIONS = _positions()


def _position(selector: int) -> State:
    name, data = POSITIONS[selector % len(POSITIONS)]
    return get_game(name).state_from_data(data)


def TestOneInput(data: bytes) -> None:  # noqa: N802 - libFuzzer's name
    """Apply one move to one position; raise Finding (or any other exception) when the rules misbehave."""
    if not data:
        return
    try:
        move = decode(b"\x81\xa4move" + data[1:])["move"]  # a map {"move": <the rest>}
    except ProtocolError:
        return
    state = _position(data[0])
    with harness.bounded_memory(MEMORY_PER_BYTE * len(data) + MEMORY_BASE):
        try:
            events = _play(state, move)
        except GameError as exc:
            harness.one_line(exc)
            return
    encode({"move": move, "events": events})  # the match log holds both
    state.game.state_from_data(state.to_data())


def _play(state: State, move: Any) -> list[Any]:
    """The move as the referee plays it: alone, or as the first mover's of a simultaneous turn."""
    movers = state.movers()
    if len(movers) <= 1:
        return state.apply(move)
    state.check_move(movers[0], move)
    return state.apply_turn({movers[0]: move, **{seat: state.moves_of(seat)[0] for seat in movers[1:]}})


def seeds() -> list[bytes]:
    """A legal move and a near miss for every position."""
    found = []
    for selector in range(len(POSITIONS)):
        state = _position(selector)
        if state.is_over():
            continue
        move = state.moves_of(state.movers()[0])[0]
        found.append(bytes([selector]) + encode({"m": move})[3:])  # the value alone: drop the map and its key
        found.append(bytes([selector]) + encode({"m": [move, move]})[3:])
    return found


if __name__ == "__main__":
    harness.main(TestOneInput, seeds)
