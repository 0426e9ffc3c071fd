"""CURVE key files of remote bots (SPEC.md section 13): a pair as pyzmq's zmq.auth writes it, read back.

`NAME.key` holds the public key, `NAME.key_secret` both (mode 0600); both are the text
certificates of zmq.auth.create_certificates (Z85 keys of 40 characters), so zmq.auth,
czmq and this module read each other's files.
"""

from __future__ import annotations

import datetime
import os
import re
from pathlib import Path

NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
Z85_KEY = re.compile(rb"[0-9a-zA-Z.\-:+=^!/*?&<>()\[\]{}@%$#]{40}")

_PUBLIC_BANNER = ("#   ****  Generated on {0} by arena keys new  ****\n"
                  "#   ZeroMQ CURVE Public Certificate\n"
                  "#   Give this file to the organiser who lets your bot play.\n\n")
_SECRET_BANNER = ("#   ****  Generated on {0} by arena keys new  ****\n"
                  "#   ZeroMQ CURVE **Secret** Certificate\n"
                  "#   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.\n\n")


class KeyFileError(ValueError):
    """A key file that cannot be made or read; the message is one line naming the file."""


def _certificate(banner: str, public: bytes, secret: bytes | None) -> bytes:
    text = banner.format(datetime.datetime.now()) + "metadata\ncurve\n"
    text += f'    public-key = "{public.decode()}"\n'
    if secret is not None:
        text += f'    secret-key = "{secret.decode()}"\n'
    return text.encode()


def _write_new(path: Path, data: bytes, mode: int) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
    try:
        os.fchmod(fd, mode)  # whatever the umask
        os.write(fd, data)
    finally:
        os.close(fd)


def new_key_pair(name: str, directory: str | os.PathLike[str] = ".") -> tuple[Path, Path]:
    """Write NAME.key (public, 0644) and NAME.key_secret (0600) in directory; never overwrites one."""
    import zmq  # the key pair is libzmq's (curve_keypair)

    if not NAME_PATTERN.fullmatch(name):
        raise KeyFileError(f"key name {name!r} must be 1-64 letters, digits, '_', '.' or '-', starting with a "
                           "letter or digit")
    folder = Path(directory)
    if not folder.is_dir():
        raise KeyFileError(f"no such directory: {folder}")
    public_path, secret_path = folder / f"{name}.key", folder / f"{name}.key_secret"
    for path in (public_path, secret_path):
        if path.exists():
            raise KeyFileError(f"{path} exists (a key is never overwritten; choose another name or remove it)")
    public, secret = zmq.curve_keypair()
    try:
        _write_new(secret_path, _certificate(_SECRET_BANNER, public, secret), 0o600)
        _write_new(public_path, _certificate(_PUBLIC_BANNER, public, None), 0o644)
    except OSError as exc:
        raise KeyFileError(f"cannot write {exc.filename or folder}: {exc.strerror}") from None
    return public_path, secret_path


def read_key_file(path: str | os.PathLike[str], secret: bool = False) -> tuple[bytes, bytes | None]:
    """The (public, secret) Z85 keys of a certificate file; secret=True requires the secret key."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise KeyFileError(f"cannot read key file {os.fspath(path)}: {exc.strerror}") from None
    found: dict[bytes, bytes] = {}
    for line in data.splitlines():
        line = line.strip()
        if line.startswith(b"#") or b"=" not in line:
            continue
        field, _, value = line.partition(b"=")
        found.setdefault(field.strip(), value.strip(b" \t'\""))
    public, secret_key = found.get(b"public-key"), found.get(b"secret-key")
    if public is None or not Z85_KEY.fullmatch(public):
        raise KeyFileError(f"{os.fspath(path)} holds no CURVE public key (a NAME.key file of arena keys new)")
    if secret_key is not None and not Z85_KEY.fullmatch(secret_key):
        raise KeyFileError(f"{os.fspath(path)}: its secret-key is not a Z85 key of 40 characters")
    if secret and secret_key is None:
        raise KeyFileError(f"{os.fspath(path)} holds no secret key (give the NAME.key_secret file)")
    return public, secret_key


def key_name(path: str | os.PathLike[str]) -> str:
    """The name a key file stands for: its file name without .key or .key_secret."""
    name = Path(path).name
    for suffix in (".key_secret", ".key"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return Path(path).stem
