"""`arena keys new NAME`: a CURVE key pair for a remote bot or a referee's listener (SPEC.md section 13)."""

from __future__ import annotations

import argparse
from typing import Any

from arena.api import ArenaError
from arena.argtypes import EXIT_OK
from protocol.keys import KeyFileError, new_key_pair


def cmd_keys_new(args: argparse.Namespace) -> int:
    """Write NAME.key and NAME.key_secret and say where."""
    try:
        public, secret = new_key_pair(args.name, args.dir)
    except KeyFileError as exc:
        raise ArenaError(str(exc)) from None
    print(f"public key: {public} (give it to whoever lets your bot play, or to remote bots)")
    print(f"secret key: {secret} (mode 0600: keep it to yourself)")
    return EXIT_OK


def register(subparsers: Any) -> None:
    """Add `arena keys` (called by arena.cli.main)."""
    keys = subparsers.add_parser("keys", help="CURVE key pairs for bots on other machines")
    sub = keys.add_subparsers(dest="keys_command", required=True, parser_class=type(keys))
    new = sub.add_parser("new", help="write NAME.key (public) and NAME.key_secret (secret, mode 0600)",
                         description="Write a CURVE key pair as pyzmq's zmq.auth writes it: NAME.key, the public "
                                     "key, and NAME.key_secret (mode 0600). An existing file is never overwritten.")
    new.add_argument("name", metavar="NAME", help="the key's name (a remote bot's seat name by default)")
    new.add_argument("--dir", default=".", metavar="DIR", help="where to write the files (default: here)")
    new.set_defaults(func=cmd_keys_new)
