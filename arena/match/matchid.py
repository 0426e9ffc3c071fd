"""The match id a bot is sent: opaque, so that it tells nothing of the bots, the game or the order.

The arena's own ids (`s0-r0-b1-b2`, `g17`) name bot indices; with the public list of bots
that would name the opponent. Bots get an HMAC of the arena's id instead. Games that do not
reveal the players' names (every game of `arena serve`, a tournament with `reveal_names =
false`) key it with a secret the bots never see: the results directory's log key, so that a
resumed run sends the same ids (and bots that seed from the id repeat their games), or,
without one (`logs = false`), a key drawn once per process. Games that reveal the names
(`arena match`, local tournaments by default) have nothing to hide and key it with the match
seed: a re-run anywhere, in any directory, sends the same ids and plays the same games.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

ID_HEX_DIGITS = 20  # 80 bits: no two matches of a tournament share an id
_LABEL = b"arena: the match ids bots are sent"  # a key of its own, derived from the log key
PROCESS_KEY = secrets.token_bytes(32)  # for anonymous games without a log key


def seed_key(seed: int) -> bytes:
    """The key of the ids of games that reveal the names: their match seed's."""
    return f"arena match seed {seed}".encode()


def bot_match_id(match_id: str, key: bytes) -> str:
    """The id bots are sent for the arena's match_id: hex digits, the same for the same id and key."""
    secret = hmac.new(key, _LABEL, hashlib.sha256).digest()
    return hmac.new(secret, match_id.encode(), hashlib.sha256).hexdigest()[:ID_HEX_DIGITS]
