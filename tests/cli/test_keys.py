"""`arena keys new`: a CURVE key pair zmq.auth reads, the secret 0600, nothing ever overwritten."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
import zmq
import zmq.auth

from arena.cli.main import main
from protocol.keys import KeyFileError, key_name, read_key_file


def test_new_pair_is_zmq_auths_with_a_private_secret(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["keys", "new", "alice", "--dir", str(tmp_path)]) == 0
    public_path, secret_path = tmp_path / "alice.key", tmp_path / "alice.key_secret"
    assert stat.S_IMODE(secret_path.stat().st_mode) == 0o600
    assert stat.S_IMODE(public_path.stat().st_mode) == 0o644
    public, secret = zmq.auth.load_certificate(secret_path)
    assert zmq.auth.load_certificate(public_path) == (public, None)
    assert secret is not None and zmq.curve_public(secret) == public  # a real pair
    assert read_key_file(secret_path, secret=True) == (public, secret)
    assert key_name(secret_path) == key_name(public_path) == "alice"
    assert "alice.key_secret" in capsys.readouterr().out


def test_an_existing_key_is_never_overwritten(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["keys", "new", "bob", "--dir", str(tmp_path)]) == 0
    before = (tmp_path / "bob.key_secret").read_bytes()
    assert main(["keys", "new", "bob", "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bob.key exists" in err
    assert (tmp_path / "bob.key_secret").read_bytes() == before


@pytest.mark.parametrize(("args", "says"), [
    (["keys", "new", "a b"], "key name 'a b'"),
    (["keys", "new", "x", "--dir", "/no/such/dir"], "no such directory: /no/such/dir"),
])
def test_bad_input_is_one_line(args: list[str], says: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


def test_reading_keys_names_the_file(tmp_path: Path) -> None:
    main(["keys", "new", "carol", "--dir", str(tmp_path)])
    with pytest.raises(KeyFileError, match="holds no secret key"):
        read_key_file(tmp_path / "carol.key", secret=True)
    (tmp_path / "junk.key").write_text("hello\n")
    with pytest.raises(KeyFileError, match="junk.key holds no CURVE public key"):
        read_key_file(tmp_path / "junk.key")
    with pytest.raises(KeyFileError, match="cannot read key file"):
        read_key_file(tmp_path / "none.key")
