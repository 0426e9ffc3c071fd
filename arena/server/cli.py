"""`arena serve`, `arena entrants` and `arena submit`: run a contest server, register entrants, upload a bot."""

from __future__ import annotations

import argparse
import json
import logging
import os
import secrets
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from arena.argtypes import EXIT_FAILED, EXIT_OK, CliError, positive_int

EXTRA_HINT = "arena serve needs the server extra: pip install 'arena[server]' (or -e '.[server]' in a checkout)"


def register(subparsers: Any) -> None:
    """Add `serve`, `entrants` and `submit` (called by arena.cli.main)."""
    s = subparsers.add_parser(
        "serve", help="run a contest server: entrants submit bots, a sandboxed ladder plays them",
        usage="arena serve [options] CONFIG\n       arena serve backup CONFIG DEST",
        description="Start the contest server of CONFIG (TOML): the web pages and JSON API, the build and "
                    "validation of submissions in the sandbox, and the ladder. State lives under the config's "
                    "directory (SQLite, submissions, logs, finals); a restart resumes it. "
                    "`arena serve backup CONFIG DEST` copies that state, consistently, into the new folder DEST "
                    "while the server runs (restore: docs/server.md).")
    s.add_argument("config", metavar="CONFIG")
    s.add_argument("more", nargs="*", help=argparse.SUPPRESS)  # `backup CONFIG DEST`
    s.add_argument("--host", help="address to listen on (default: the config's, else 127.0.0.1)")
    s.add_argument("--port", type=int, help="port (default: the config's, else 8000; 0 picks a free one)")
    s.add_argument("--workers", type=positive_int, metavar="N", help="referee processes for the ladder")
    s.add_argument("--insecure", action="store_true",
                   help="allow sandbox = \"none\" (bots run as your user), or a sandbox without its system-call "
                        "filter: for trusted bots only")
    s.add_argument("--executor", choices=("local", "dask"), default="local",
                   help="where ladder games run: local worker processes, or a Dask cluster whose workers see the "
                        "server's directory at the same path (pip install 'arena[dask]')")
    s.add_argument("--scheduler", metavar="ADDRESS", help="the Dask scheduler (tcp://host:8786) for --executor dask")
    s.add_argument("--paused", action="store_true",
                   help="start with the ladder paused (after a restore: look, then resume it on the admin page)")
    s.set_defaults(func=cmd_serve)

    e = subparsers.add_parser("entrants", help="list or add a contest server's entrants",
                              description="Add entrants to CONFIG's contest: each token is printed once (NAME, a "
                                          "tab, the token), written to NAME.token for the entrant (arena submit "
                                          "... --token @NAME.token) and stored hashed. Or list the entrants.")
    e.add_argument("action", choices=("add", "list"))
    e.add_argument("config", metavar="CONFIG")
    e.add_argument("names", nargs="*", metavar="NAME")
    e.add_argument("--token-dir", metavar="DIR", default=".",
                   help="where add writes NAME.token, readable by you alone (default: the current directory)")
    e.set_defaults(func=cmd_entrants)

    u = subparsers.add_parser("submit", help="upload a bot to a contest server",
                              description="Upload PATH (a source file or an archive with arena.toml) to the "
                                          "server at URL as the entrant whose token is given, then print the "
                                          "submission's id and status (--wait: until it is validated).")
    u.add_argument("url", metavar="URL")
    u.add_argument("path", metavar="PATH")
    u.add_argument("--token", required=True, help="your entrant token (or @FILE to read it from a file)")
    u.add_argument("--wait", action="store_true", help="wait until the build and validation are done")
    u.add_argument("--timeout", type=positive_int, default=600, metavar="S", help="how long --wait waits")
    u.set_defaults(func=cmd_submit)


def _config(path: str, insecure: bool = False) -> Any:
    from arena.server.config import load_server_config
    from arena.tournament.plan.config import ConfigError

    try:
        return load_server_config(path, insecure)
    except ConfigError as exc:
        raise CliError(str(exc)) from None


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server until SIGINT or SIGTERM (or, as `serve backup CONFIG DEST`, copy its state)."""
    if args.config == "backup" and args.more:
        if len(args.more) != 2:
            raise CliError("serve backup: give CONFIG and DEST (a new folder)")
        return cmd_backup(*args.more)
    if args.more:
        raise CliError(f"unexpected arguments: {' '.join(args.more)} (arena serve CONFIG, or serve backup CONFIG DEST)")
    try:
        import uvicorn
    except ImportError:
        raise CliError(EXTRA_HINT) from None
    import dataclasses

    from arena.server.app import create_app
    from arena.server.auth import AuthError
    from arena.server.contest import check_private
    from arena.server.db import DatabaseError
    from arena.tournament.plan.config import ConfigError
    from arena.tournament.run.dirlock import DirectoryInUse, lock_directory

    config = _config(args.config, args.insecure)
    if args.scheduler and args.executor != "dask":
        raise CliError("--scheduler goes with --executor dask")
    changes = {key: value for key, value in (("host", args.host), ("port", args.port), ("workers", args.workers),
                                             ("executor", args.executor), ("scheduler", args.scheduler))
               if value is not None}
    config = dataclasses.replace(config, **changes)
    if config.remote.allowed:
        from arena.server.remotes import check_listen

        problem = check_listen(config.remote.listen)
        if problem:
            raise CliError(problem)
    if config.remote.allowed and config.executor != "local":
        raise CliError("[remote] allowed = true: the ladder runs on the local executor, where remote bots connect "
                       "(not --executor dask)")
    from arena.server.backup import BackupError, check_restored

    try:
        check_restored(config.directory)
    except BackupError as exc:
        raise CliError(str(exc)) from None
    try:  # one server per state directory, before anything in it is opened; held while serving
        check_private(config)  # (before the lock creates the directory)
        lock = lock_directory(config.directory)
    except ConfigError as exc:
        raise CliError(str(exc)) from None
    except DirectoryInUse as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot use the state directory {config.directory}: {exc.strerror}") from None
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        app = create_app(config)
    except (DatabaseError, AuthError, ConfigError, OSError) as exc:
        raise CliError(str(exc)) from None
    if args.paused:
        app.state.contest.db.set_setting("paused", "1")
    print(f"arena serve: {config.tournament.name} ({config.game}) on http://{config.host}:{config.port}/ — "
          f"state in {config.directory}, admin token in {config.admin_token_file}"
          + (" — the ladder is paused" if args.paused else ""), file=sys.stderr, flush=True)
    if config.remote.allowed:
        from arena.server.remotes import server_public

        print(f"arena serve: remote bots connect to {config.remote.listen} with --server-key {server_public(config)}",
              file=sys.stderr, flush=True)
    from arena.launch.builds.archive import tarfile_filter_warning

    risk = tarfile_filter_warning()
    if risk:
        print(f"arena serve: warning: {risk}", file=sys.stderr, flush=True)
    with lock:
        # Forwarding headers are believed from the config's trusted proxies only (arena/server/net.py).
        uvicorn.run(app, host=config.host, port=config.port, log_level="info", proxy_headers=False,
                    timeout_graceful_shutdown=5)
    return EXIT_OK


def cmd_backup(config_path: str, dest: str) -> int:
    """`arena serve backup CONFIG DEST`: a consistent copy of the contest's state, made while it runs."""
    from arena.server.backup import BackupError, backup

    config = _config(config_path, insecure=True)
    try:
        report = backup(config, Path(dest))
    except BackupError as exc:
        raise CliError(str(exc)) from None
    print(f"backed up {config.directory} to {report.dest}: {report.games} games played ({report.logs} logs), "
          f"{report.versions} versions, {report.files} files, {report.bytes / 2**20:.1f} MiB")
    for name in report.skipped:
        print(f"  not copied (not a regular file or folder): {name}", file=sys.stderr)
    return EXIT_OK


def cmd_entrants(args: argparse.Namespace) -> int:
    """Add entrants (printing each token once) or list them."""
    from arena.server.auth import AuthError, add_entrant
    from arena.server.db import Database, DatabaseError

    config = _config(args.config, insecure=True)
    try:
        db = Database(config.directory / "server.db")
    except DatabaseError as exc:
        raise CliError(str(exc)) from None
    if args.action == "list":
        for row in db.rows("SELECT e.name, e.disabled, (SELECT COUNT(*) FROM submissions s WHERE s.entrant = e.id) "
                           "AS versions FROM entrants e WHERE e.house = 0 ORDER BY e.name"):
            print(f"{row.name}\t{row.versions} versions{' (disqualified)' if row.disabled else ''}")
        return EXIT_OK
    if not args.names:
        raise CliError("entrants add: name at least one entrant")
    folder = Path(args.token_dir)
    if not folder.is_dir():
        raise CliError(f"--token-dir {folder}: no such directory")
    for name in args.names:  # before any is added: a token file is never overwritten
        if (folder / f"{name}.token").exists():
            raise CliError(f"{folder / f'{name}.token'} exists (an earlier entrant's token?): move it away first")
    for name in args.names:
        try:
            token = add_entrant(db, name)
        except AuthError as exc:
            raise CliError(str(exc)) from None
        path = folder / f"{name}.token"
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w") as file:
                file.write(token + "\n")
        except OSError as exc:
            print(f"arena entrants: cannot write {path}: {exc.strerror}; the token is only here", file=sys.stderr)
        else:
            print(f"arena entrants: {name}'s token is in {path} (for {name} alone: arena submit URL BOT "
                  f"--token @{path.name})", file=sys.stderr)
        print(f"{name}\t{token}", flush=True)
    return EXIT_OK


def _request(url: str, token: str, data: bytes | None = None, content_type: str = "") -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}", "Accept": "application/json"}
    if content_type:
        headers["Content-Type"] = content_type
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        try:
            body = json.loads(exc.read() or b"null")
        except ValueError:
            body = {"error": exc.reason}
        return exc.code, body
    except (urllib.error.URLError, OSError) as exc:
        raise CliError(f"cannot reach {url}: {getattr(exc, 'reason', exc)}") from None


def multipart(field: str, filename: str, data: bytes) -> tuple[bytes, str]:
    """A multipart/form-data body with one file field; (body, content type)."""
    boundary = "arena-" + secrets.token_hex(12)
    quoted = filename.replace('"', "%22").replace("\r", "").replace("\n", "")
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{quoted}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def cmd_submit(args: argparse.Namespace) -> int:
    """Upload, print the id and status; with --wait, poll until the version is on the ladder or refused."""
    import time

    token = args.token
    if token.startswith("@"):
        try:
            token = Path(token[1:]).read_text().strip()
        except OSError as exc:
            raise CliError(f"--token {args.token}: {exc.strerror}") from None
    path = Path(args.path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror}") from None
    base = args.url.rstrip("/")
    body, kind = multipart("file", path.name, data)
    status, answer = _request(f"{base}/api/submissions", token, body, kind)
    if status != 201:
        message = answer.get("error") if isinstance(answer, dict) else answer
        raise CliError(f"the server refused the upload ({status}): {message}")
    print(f"submission {answer['id']}: version {answer['version']} of {answer['entrant']}, {answer['status']}",
          flush=True)
    if not args.wait:
        return EXIT_OK
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        status, answer = _request(f"{base}/api/submissions/{answer['id']}", token)
        if status != 200:
            raise CliError(f"the server answered {status}: {answer}")
        if answer["status"] not in ("queued", "building", "validating"):
            break
        time.sleep(1.0)
    print(f"status: {answer['status']} — {answer['detail']}")
    if answer["status"] in ("failed", "rejected"):
        log = answer["build_log"] if answer["status"] == "failed" else answer["validation_log"]
        print(log.rstrip())
        return EXIT_FAILED
    return EXIT_OK if answer["status"] == "active" else EXIT_FAILED
