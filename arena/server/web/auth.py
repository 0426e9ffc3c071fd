"""Tokens, sessions and CSRF: who is asking, checked without storing anything readable.

An entrant's token is 32 random bytes shown once; the database keeps only its SHA-256 (a
random token needs no slow hash: nothing can be guessed from the digest). A browser session
is a cookie `entrant.issued.mac` signed with the server's secret; a form carries a CSRF
token derived from that cookie, so another site can neither read nor forge it.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from arena.server.state.db import Database, now
from arena.server.uploads.sources import NAME

SESSION_COOKIE = "arena_session"
SESSION_DAYS = 14
ADMIN = 0  # the session of the admin (no entrant has id 0)


class AuthError(ValueError):
    """A token or session that does not open anything."""


def new_token() -> str:
    """A fresh bearer token."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    """What the database stores of a token."""
    return hashlib.sha256(token.encode()).hexdigest()


def admin_token(path: Path) -> str:
    """The admin token from its file, created (0600) with a fresh token when missing."""
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        token = new_token()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(token + "\n")
        return token
    if len(text) < 16:
        raise AuthError(f"{path}: the admin token must be at least 16 characters")
    return text


@dataclass(frozen=True)
class Caller:
    """Who made a request: an entrant (by id), the admin, or nobody."""

    entrant: int | None = None
    admin: bool = False
    name: str = ""

    @property
    def known(self) -> bool:
        """True for a logged-in entrant or the admin."""
        return self.admin or self.entrant is not None


class Keys:
    """The server's secrets: the session key and the admin token."""

    def __init__(self, db: Database, admin_token_file: Path) -> None:
        self.db = db
        secret = db.setting("session_secret")
        if not secret:
            secret = secrets.token_hex(32)
            db.set_setting("session_secret", secret)
        self.secret = bytes.fromhex(secret)
        self.admin = admin_token(admin_token_file)

    def by_token(self, token: str) -> Caller:
        """The caller a bearer token names (Caller() when none)."""
        token = token.strip()
        if not token:
            return Caller()
        if hmac.compare_digest(token.encode(), self.admin.encode()):
            return Caller(admin=True, name="admin")
        row = self.db.row("SELECT id, name FROM entrants WHERE token_hash = ? AND disabled = 0 AND house = 0",
                          token_hash(token))
        return Caller(entrant=row.id, name=row.name) if row is not None else Caller()

    def _mac(self, text: str) -> str:
        return hmac.new(self.secret, text.encode(), hashlib.sha256).hexdigest()

    def session_cookie(self, caller: Caller) -> str:
        """The signed session value for a caller who just logged in."""
        who = ADMIN if caller.admin else caller.entrant
        text = f"{who}.{int(time.time())}"
        return f"{text}.{self._mac(text)}"

    def by_session(self, cookie: str | None) -> Caller:
        """The caller a session cookie names (Caller() when none, forged or expired)."""
        if not cookie or cookie.count(".") != 2:
            return Caller()
        who, issued, mac = cookie.split(".")
        if not hmac.compare_digest(mac, self._mac(f"{who}.{issued}")):
            return Caller()
        try:
            if time.time() - int(issued) > SESSION_DAYS * 86400:
                return Caller()
            number = int(who)
        except ValueError:
            return Caller()
        if number == ADMIN:
            return Caller(admin=True, name="admin")
        row = self.db.row("SELECT id, name FROM entrants WHERE id = ? AND disabled = 0", number)
        return Caller(entrant=row.id, name=row.name) if row is not None else Caller()

    def csrf(self, seed: str) -> str:
        """The CSRF token of a session (or of a visitor's pre-session cookie: the login form)."""
        return self._mac("csrf:" + seed)[:32]

    def check_csrf(self, seed: str, sent: str) -> bool:
        """True when a form's token is the one of its session (or visitor)."""
        return bool(seed) and bool(sent) and hmac.compare_digest(sent, self.csrf(seed))


def add_entrant(db: Database, name: str) -> str:
    """Create an entrant; its token (shown once, stored hashed). AuthError for a bad or taken name."""
    if not NAME.fullmatch(name) or name == "house":
        raise AuthError(f"entrant name {name!r}: use letters, digits, '.', '_' or '-' (not 'house')")
    if db.value("SELECT id FROM entrants WHERE name = ?", name) is not None:
        raise AuthError(f"there is already an entrant named {name!r}")
    token = new_token()
    db.execute("INSERT INTO entrants (name, token_hash, created) VALUES (?, ?, ?)", name, token_hash(token), now())
    return token
