"""`arena serve`, `arena entrants` and `arena submit`: run a contest server, register entrants, upload a bot."""

from __future__ import annotations

import argparse
import json
import logging
import os
import secrets
import shlex
import socket
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from arena.argtypes import EXIT_FAILED, EXIT_OK, CliError, positive_int
from arena.server.state.eventlog import FORMATS, configure, tell

EXTRA_HINT = "arena serve needs the server extra: pip install 'arena[server]' (or -e '.[server]' in a checkout)"


def register(subparsers: Any) -> None:
    """Add `serve`, `entrants` and `submit` (called by arena.cli.main)."""
    s = subparsers.add_parser(
        "serve", help="run a contest server: entrants submit bots, a sandboxed ladder plays them",
        usage="arena serve [options] CONFIG\n       arena serve backup CONFIG DEST\n"
              "       arena serve finals|freeze|unfreeze|pause|resume|export|status CONFIG",
        description="Start the contest server of CONFIG (TOML): the web pages and JSON API, the build and "
                    "validation of submissions in the sandbox, and the ladder. State lives under the config's "
                    "directory (SQLite, submissions, logs, finals); a restart resumes it. Each event (an upload, a "
                    "build, a validation, the ladder's progress, the finals, an error) is one line on stderr. "
                    "`arena serve backup CONFIG DEST` copies that state, consistently, into the new folder DEST "
                    "while the server runs (restore: docs/server.md). `arena serve ACTION CONFIG` acts on the "
                    "running server (through DIRECTORY/admin.sock, for its own user): start the finals, close or "
                    "open submissions, pause or resume the ladder, print the export (JSON) or the status; exit 0: "
                    "done, 1: refused (the line says why), 3: no server runs.")
    s.add_argument("config", metavar="CONFIG")
    s.add_argument("more", nargs="*", help=argparse.SUPPRESS)  # `backup CONFIG DEST`, `ACTION CONFIG`
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
                   help="start with the ladder paused (after a restore: look, then resume it)")
    s.add_argument("-v", "--verbose", dest="loud", action="count", default=0,
                   help="tell each ladder game and the web server's access lines too")
    s.add_argument("-q", "--quiet", action="store_true", help="tell only warnings and errors")
    s.add_argument("--log-format", choices=FORMATS, default="text",
                   help="each event as a line of text (default) or as one JSON object")
    s.add_argument("--json", action="store_true", help="status: print the state as one JSON object")
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
    from arena.server.state.config import load_server_config
    from arena.tournament.plan.config import ConfigError

    try:
        return load_server_config(path, insecure)
    except ConfigError as exc:
        raise CliError(str(exc)) from None


def cmd_serve(args: argparse.Namespace) -> int:
    """Run the server until SIGINT or SIGTERM (or copy its state, or act on the running one)."""
    from arena.server.web.control import ACTIONS

    if args.config == "backup" and args.more:
        if len(args.more) != 2:
            raise CliError("serve backup: give CONFIG and DEST (a new folder)")
        return cmd_backup(*args.more)
    if args.config in ACTIONS and args.more:
        if len(args.more) != 1:
            raise CliError(f"serve {args.config}: give CONFIG alone (arena serve {args.config} CONFIG)")
        return cmd_admin(args.config, args.more[0], args.json)
    if args.more:
        raise CliError(f"unexpected arguments: {' '.join(args.more)} (arena serve CONFIG, serve backup CONFIG DEST, "
                       f"or serve ACTION CONFIG: {', '.join(ACTIONS)})")
    try:
        import uvicorn
    except ImportError:
        raise CliError(EXTRA_HINT) from None
    config = _serve_config(args)
    lock = _lock(config)
    verbosity = -1 if args.quiet else args.loud + bool(getattr(args, "verbose", False))
    configure(verbosity, args.log_format)
    listener, url = _listen(config.host, config.port)
    app = _app(config, args.paused, url)
    _tell_start(config, url, args.paused)
    with lock, listener:
        # Forwarding headers are believed from the config's trusted proxies only (arena/server/web/net.py).
        # port 0: uvicorn names the listener's own port in its start-up line (shown with -v)
        server = uvicorn.Server(uvicorn.Config(app, host=config.host, port=0, log_config=None, access_log=verbosity > 0,
                                               proxy_headers=False, timeout_graceful_shutdown=5))
        server.run(sockets=[listener])
    return EXIT_OK


def _serve_config(args: argparse.Namespace) -> Any:
    """The config with the command line's changes, checked for what serving needs."""
    import dataclasses

    config = _config(args.config, args.insecure)
    if args.scheduler and args.executor != "dask":
        raise CliError("--scheduler goes with --executor dask")
    changes = {key: value for key, value in (("host", args.host), ("port", args.port), ("workers", args.workers),
                                             ("executor", args.executor), ("scheduler", args.scheduler))
               if value is not None}
    config = dataclasses.replace(config, **changes)
    if config.remote.allowed:
        from arena.server.engine.remotes import check_listen

        problem = check_listen(config.remote.listen)
        if problem:
            raise CliError(problem)
    if config.remote.allowed and config.executor != "local":
        raise CliError("[remote] allowed = true: the ladder runs on the local executor, where remote bots connect "
                       "(not --executor dask)")
    return config


def _lock(config: Any) -> Any:
    """One server per state directory, before anything in it is opened; held while serving."""
    from arena.server.web.contest import check_private
    from arena.tournament.plan.config import ConfigError
    from arena.tournament.run.dirlock import DirectoryInUse, lock_directory

    try:
        check_private(config)  # (before the lock creates the directory)
        return lock_directory(config.directory)
    except (ConfigError, DirectoryInUse) as exc:
        raise CliError(str(exc)) from None
    except OSError as exc:
        raise CliError(f"cannot use the state directory {config.directory}: {exc.strerror}") from None


def _listen(host: str, port: int) -> tuple[socket.socket, str]:
    """A listening socket on host:port (port 0: a free one) and the pages' URL, known before the server starts."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    listener = socket.socket(family, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen(2048)
    except OSError as exc:
        listener.close()
        raise CliError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    listener.set_inheritable(True)
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    return listener, f"http://{shown}:{listener.getsockname()[1]}/"


def _app(config: Any, paused: bool, url: str) -> Any:
    """The application of the contest (its database opened, migrated on the engine's start)."""
    from arena.server.state.db import DatabaseError
    from arena.server.web.app import create_app
    from arena.server.web.auth import AuthError
    from arena.tournament.plan.config import ConfigError

    try:
        app = create_app(config)
    except (DatabaseError, AuthError, ConfigError, OSError) as exc:
        raise CliError(str(exc)) from None
    if paused:
        app.state.contest.db.set_setting("paused", "1")
    app.state.contest.url = url
    return app


def _tell_start(config: Any, url: str, paused: bool) -> None:
    """The start lines: a tarfile warning, the backup restored, remote bots' key; last, where the pages are."""
    from arena.launch.builds.archive import tarfile_filter_warning
    from arena.server.state.backup import restored_from

    risk = tarfile_filter_warning()
    if risk:
        tell("start", "%s", risk, level=logging.WARNING)
    restored = restored_from(config.directory)
    if restored:
        tell("start", "%s", restored)
    if config.remote.allowed:
        from arena.server.engine.remotes import server_public

        tell("start", "remote bots connect to %s with --server-key %s", config.remote.listen, server_public(config),
             listen=config.remote.listen)
    # Last: a script waiting for this line has read the others.
    tell("start", "%s (%s) running on %s%s: state in %s, admin token in %s; `arena serve status|finals|freeze|"
         "unfreeze|pause|resume|export %s` act on it", config.tournament.name, config.game, url,
         " with the ladder paused" if paused else "", config.directory, config.admin_token_file, config.source,
         url=url, directory=str(config.directory), paused=paused)


def cmd_admin(action: str, config_path: str, as_json: bool) -> int:
    """`arena serve ACTION CONFIG`: one action on the running server; its answer on stdout."""
    from arena.server.web.control import EXIT_NO_SERVER, NoServer, ask

    config = _config(config_path, insecure=True)
    try:
        answer = ask(config.directory, action, shlex.quote(config_path))
    except NoServer as exc:
        print(f"arena serve {action}: {exc}", file=sys.stderr)
        return EXIT_NO_SERVER
    if action == "export":
        print(json.dumps(answer.get("data"), indent=1))
    elif action == "status" and as_json:
        print(json.dumps(answer.get("data")))
    elif answer.get("ok"):
        print(answer.get("message", ""))
    else:
        print(f"arena serve {action}: {answer.get('message', '')}", file=sys.stderr)
    return EXIT_OK if answer.get("ok") else EXIT_FAILED


def cmd_backup(config_path: str, dest: str) -> int:
    """`arena serve backup CONFIG DEST`: a consistent copy of the contest's state, made while it runs."""
    from arena.server.state.backup import BackupError, backup
    from arena.server.web.control import NOTE, NoServer, ask

    config = _config(config_path, insecure=True)
    try:
        report = backup(config, Path(dest))
    except BackupError as exc:
        raise CliError(str(exc)) from None
    line = (f"backed up {config.directory} to {report.dest}: {report.games} games played ({report.logs} logs), "
            f"{report.versions} versions, {report.files} files, {report.bytes / 2**20:.1f} MiB")
    print(line)
    try:  # the running server's terminal and admin page tell it too
        ask(config.directory, NOTE, event="backup", message=line.removeprefix("backed up "))
    except NoServer:
        pass
    for name in report.skipped:
        print(f"  not copied (not a regular file or folder): {name}", file=sys.stderr)
    return EXIT_OK


def cmd_entrants(args: argparse.Namespace) -> int:
    """Add entrants (printing each token once) or list them."""
    from arena.server.state.db import Database, DatabaseError
    from arena.server.web.auth import AuthError, add_entrant

    config = _config(args.config, insecure=True)
    try:
        db = Database(config.directory / "server.db")
    except DatabaseError as exc:
        raise CliError(str(exc)) from None
    if args.action == "list":
        for row in db.rows("SELECT e.name, e.disabled, (SELECT COUNT(*) FROM submissions s WHERE s.entrant = e.id) "
                           "AS versions FROM entrants e WHERE e.house = 0 ORDER BY e.name"):
            count = f"{row.versions} version{'' if row.versions == 1 else 's'}"
            print(f"{row.name}\t{count}{' (disqualified)' if row.disabled else ''}")
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
