"""The match id bots are sent: opaque, keyed, the same for the same match and key."""

from __future__ import annotations

import re

from arena.match.matchid import bot_match_id, seed_key


def test_ids_are_opaque_keyed_and_repeatable() -> None:
    key = bytes(range(32))
    arena_ids = [f"s{s}-r{r}-b{a}-b{b}"
                 for s in range(3) for r in range(2) for a in range(4) for b in range(4) if a != b]
    sent = [bot_match_id(match, key) for match in arena_ids]
    assert all(re.fullmatch(r"[0-9a-f]{20}", one) for one in sent)
    assert len(set(sent)) == len(sent)
    assert sent == [bot_match_id(match, key) for match in arena_ids]  # a re-run sends the same ids
    assert all(bot_match_id(match, bytes(32)) != one for match, one in zip(arena_ids, sent))  # another key: others
    # A single match is keyed by its seed: the same command gives the same id on any machine.
    assert bot_match_id("blocking-3", seed_key(3)) == bot_match_id("blocking-3", seed_key(3))
    assert bot_match_id("blocking-3", seed_key(3)) != bot_match_id("blocking-3", seed_key(4))
