"""Serve a Python Bot over protocol v1: `python -m protocol.run path/bot.py | module:Class`.

Over ZeroMQ (ARENA_ENDPOINT and ARENA_TOKEN set), as the arena starts Python bots, or with
`--stdio` over the bot's own pipes as JSON lines (SPEC.md section 10). On an `ipc://`
endpoint the SDK speaks ZMTP on the Unix socket itself (protocol/zmtp.py): one hop each
way, as a pipe, where libzmq would cross two threads on each side.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import importlib.util
import inspect
import json
import os
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocol import zmtp
from protocol.bot import Bot
from protocol.codec import (
    ProtocolError,
    decode_from_referee,
    decode_line_from_referee,
    encode,
    encode_json_line,
)
from protocol.messages import ENV_ENDPOINT, ENV_TOKEN, MAX_MESSAGE_BYTES, hello_message
from protocol.options import KeyValueError, build_bot, parse_key_values


class BotLoadError(Exception):
    """The bot named on the command line cannot be loaded."""


def _bot_classes(namespace: dict[str, Any], module_name: str) -> list[type[Bot]]:
    return [
        obj
        for obj in namespace.values()
        if inspect.isclass(obj) and issubclass(obj, Bot) and obj is not Bot
        and obj.__module__ == module_name
    ]


def where_it_failed(exc: BaseException, folder: Path | None = None) -> str:
    """`bot.py, line 3: SyntaxError: expected ':'`: the file and line of the bot's code that raised."""
    def shown(filename: str) -> str:
        path = Path(filename)
        if folder is not None and path.is_absolute() and path.is_relative_to(folder):
            return str(path.relative_to(folder))
        return path.name if path.is_absolute() else filename

    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{shown(exc.filename)}, line {exc.lineno}: {type(exc).__name__}: {exc.msg}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if not f.filename.startswith("<frozen")]
    ours = [f for f in frames if folder is not None and Path(f.filename).is_relative_to(folder)]
    frame = (ours or frames or [None])[-1]
    text = f"{type(exc).__name__}: {exc}"
    return f"{shown(frame.filename)}, line {frame.lineno}: {text}" if frame is not None else text


def load_bot_class(spec: str) -> type[Bot]:
    """Load a Bot subclass from `path/bot.py`, `path/bot.py:Class` or `module:Class`."""
    target, _, class_name = spec.partition(":") if not spec.endswith(".py") else (spec, "", "")
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise BotLoadError(f"no such bot file: {target}")
        module_name = f"arena_bot_{abs(hash(str(path.resolve())))}"
        module_spec = importlib.util.spec_from_file_location(module_name, path)
        if module_spec is None or module_spec.loader is None:
            raise BotLoadError(f"cannot load {target}")
        module = importlib.util.module_from_spec(module_spec)
        sys.modules[module_name] = module
        sys.path.insert(0, str(path.resolve().parent))
        try:
            module_spec.loader.exec_module(module)
        except Exception as exc:  # the bot's own code: its whole traceback for the log, then where in one line
            traceback.print_exc()
            raise BotLoadError(where_it_failed(exc, path.resolve().parent)) from None
    else:
        try:
            module = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            if exc.name and target.startswith(exc.name):
                raise BotLoadError(f"cannot import {target}: {exc}") from None
            traceback.print_exc()
            raise BotLoadError(where_it_failed(exc)) from None
        except Exception as exc:
            traceback.print_exc()
            raise BotLoadError(where_it_failed(exc)) from None
        module_name = module.__name__
    found = _bot_classes(vars(module), module_name)
    names = ", ".join(c.__name__ for c in found)
    if class_name:
        cls = getattr(module, class_name, None)
        if not (inspect.isclass(cls) and issubclass(cls, Bot)):
            raise BotLoadError(f"{target} has no Bot subclass {class_name}"
                               + (f" (it defines {names})" if found else ""))
        return cls
    if not found:
        raise BotLoadError(f"{target} defines no subclass of protocol.Bot: a Python bot is one (class MyBot(Bot), "
                           f"with from protocol import Bot); a program that speaks the protocol itself runs as "
                           f"exec:python3 {target}")
    if len(found) > 1:
        raise BotLoadError(f"{target} defines {len(found)} Bot subclasses ({names}): name one, "
                           f"{target}:{found[0].__name__}")
    return found[0]


def answer(bot: Bot, kind: str, msg: dict[str, Any]) -> dict[str, Any] | None:
    """The bot's reply to one referee message (`turn` first: it is the hot path); None when there is none."""
    if kind == "turn":
        return {"type": "move", "seq": msg["seq"], "move": bot.turn(msg["events"], msg["time_left_ms"])}
    if kind == "init":
        bot.reseed(msg["match"], msg["seat"])
        bot.names = msg.get("names")
        bot.init_game(msg["game"], msg["seat"], msg["players"], msg["setup"], msg["time_left_ms"], msg["match"])
        return {"type": "ready", "seq": msg["seq"]}
    if kind == "end":
        bot.end_game(msg["scores"], msg["ranks"], msg["reason"], msg.get("offender"))
    return None  # welcome


def _connect(endpoint: str) -> tuple[Callable[[bytes], Any], Callable[[], bytes], Callable[[], None]]:
    """(send, recv, close) of a DEALER connected to the referee's endpoint."""
    if endpoint.startswith("ipc://"):
        dealer = zmtp.Dealer(endpoint)
        return dealer.send, dealer.recv, dealer.close
    import zmq  # other endpoints (tcp://) through libzmq
    import zmq.backend

    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 1000)
    sock.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES * 16)
    sock.connect(endpoint)
    # The Cython socket's own methods: pyzmq's Python layer costs microseconds per message.
    return (functools.partial(zmq.backend.Socket.send, sock), functools.partial(zmq.backend.Socket.recv, sock),
            sock.close)


def serve(bot: Bot, endpoint: str, token: str, name: str = "") -> int:
    """Connect to the referee and serve matches until `bye`; return the exit status."""
    send, recv, close = _connect(endpoint)
    hello = hello_message(token, name or bot.name or type(bot).__name__)
    send(encode(hello))
    try:
        while True:
            kind, msg = decode_from_referee(recv())
            if kind == "bye":
                return 0
            reply = answer(bot, kind, msg)
            if reply is not None:
                send(encode(reply))
    except ProtocolError as exc:
        print(f"protocol error from referee: {exc}", file=sys.stderr)
        return 3
    except ConnectionError:
        return 0  # the referee is gone
    finally:
        close()


REMOTE_HEARTBEAT_MS = 1000  # a silent connection is pinged this often, and dropped after 3 intervals unanswered


def serve_remote(bot: Bot, endpoint: str, server_key: bytes | None, public: bytes, secret: bytes, name: str) -> int:
    """Serve matches over TCP with CURVE (SPEC.md section 13) until `bye`, saying hello on every (re)connection.

    libzmq reconnects by itself; the socket monitor tells when a connection's handshake
    succeeded, and each new connection starts with a hello. A request seen before (the
    referee sends it again after a reconnection) gets the same reply again, never a new one.
    server_key None: plain TCP, the name as routing id (only to measure what CURVE costs).
    """
    import zmq
    import zmq.utils.monitor

    context = zmq.Context()
    sock, monitor = _remote_socket(context, endpoint, server_key, public, secret, name)
    hello = encode(hello_message("", name or bot.name or type(bot).__name__))
    poller = zmq.Poller()
    poller.register(monitor, zmq.POLLIN)
    poller.register(sock, zmq.POLLIN)
    last_seq, last_reply, refused = 0, b"", False
    try:
        while True:
            ready = dict(poller.poll())
            if monitor in ready:
                event = zmq.utils.monitor.recv_monitor_message(monitor)
                if event["event"] == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                    sock.send(hello)
                elif not refused:  # libzmq keeps trying: say it once
                    refused = True
                    print(f"the referee at {endpoint} refused the handshake (is this key allowed, and the server "
                          "key its own?); still trying", file=sys.stderr)
            if sock not in ready:
                continue
            kind, msg = decode_from_referee(sock.recv())
            if kind == "bye":
                return 0
            seq = msg.get("seq")
            if isinstance(seq, int):
                if seq <= last_seq:  # sent again after a reconnection: the same reply, the bot is not asked twice
                    if seq == last_seq and last_reply:
                        sock.send(last_reply)
                    continue
                last_seq = seq
            reply = answer(bot, kind, msg)
            data = encode(reply) if reply is not None else b""
            if isinstance(seq, int):  # a welcome (no seq) leaves the last reply as it was
                last_reply = data
            if data:
                sock.send(data)
    except ProtocolError as exc:
        print(f"protocol error from referee: {exc}", file=sys.stderr)
        return 3
    finally:
        monitor.close(linger=0)
        sock.close()
        context.term()


def _remote_socket(context: Any, endpoint: str, server_key: bytes | None, public: bytes, secret: bytes,
                   name: str) -> tuple[Any, Any]:
    """A remote bot's DEALER socket, connected, with heartbeats and reconnection, and its handshake monitor."""
    import zmq

    sock = context.socket(zmq.DEALER)
    if server_key is not None:
        sock.curve_serverkey, sock.curve_publickey, sock.curve_secretkey = server_key, public, secret
    else:
        sock.routing_id = (name or "bot").encode()
    sock.setsockopt(zmq.HEARTBEAT_IVL, REMOTE_HEARTBEAT_MS)
    sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, REMOTE_HEARTBEAT_MS * 3)
    sock.setsockopt(zmq.RECONNECT_IVL, 100)
    sock.setsockopt(zmq.RECONNECT_IVL_MAX, 2000)
    sock.setsockopt(zmq.MAXMSGSIZE, MAX_MESSAGE_BYTES * 16)
    sock.linger = 1000
    failed = (zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
              | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL)
    monitor = sock.get_monitor_socket(zmq.EVENT_HANDSHAKE_SUCCEEDED | failed)
    sock.connect(endpoint)
    return sock, monitor


def protocol_pipes() -> tuple[int, int]:
    """Take stdin and stdout for the protocol; the bot's own prints go to stderr, its reads see nothing.

    Called before the bot's code is loaded, so nothing it prints, even on import, can reach the
    referee as a message. The protocol's descriptors are not inherited by the bot's children.
    """
    sys.stdout.flush()
    reader, writer = os.dup(0), os.dup(1)
    os.dup2(2, 1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    return reader, writer


def serve_stdio(bot: Bot, reader: int, writer: int, name: str = "") -> int:
    """Serve matches as JSON lines on the protocol pipes until `bye` or end of input; return the exit status."""
    hello = hello_message("", name or bot.name or type(bot).__name__)
    write = os.write

    def send(message: dict[str, Any]) -> None:
        data = encode_json_line(message)
        while data:  # a pipe may take a long line in parts
            data = data[write(writer, data):]

    send(hello)
    try:
        with os.fdopen(reader, "rb", buffering=65536) as lines:
            for line in lines:
                kind, msg = decode_line_from_referee(line)
                if kind == "bye":
                    return 0
                reply = answer(bot, kind, msg)
                if reply is not None:
                    send(reply)
    except ProtocolError as exc:
        print(f"protocol error from referee: {exc}", file=sys.stderr)
        return 3
    except BrokenPipeError:
        return 0  # the referee is gone
    finally:
        os.close(writer)
    return 0  # end of input: the referee closed the pipe


def parse_options(pairs: list[str]) -> dict[str, Any]:
    """Turn ["k=v", ...] into a map; values are JSON when they parse, else strings."""
    try:
        return parse_key_values(pairs)
    except KeyValueError as exc:
        raise BotLoadError(f"option {exc.pair!r} is not KEY=VALUE") from None


def build(args: argparse.Namespace) -> Bot:
    """The bot the command line names, built with its options; BotLoadError says in one line why it cannot start."""
    try:
        options = json.loads(args.options_json) if args.options_json else {}
        options.update(parse_options(args.option))
        if args.pascal:
            from protocol.pascal import PascalModule

            return PascalModule(args.pascal, args.interface, **options)
        cls = load_bot_class(args.bot)
    except (json.JSONDecodeError, TypeError, OSError, ImportError) as exc:
        raise BotLoadError(str(exc)) from None
    try:
        return build_bot(cls, options)
    except TypeError as exc:  # options the bot does not take
        raise BotLoadError(str(exc)) from None
    except Exception as exc:  # its constructor failed: where, in the last line
        traceback.print_exc()
        folder = Path(inspect.getfile(cls)).resolve().parent if inspect.getmodule(cls) else None
        raise BotLoadError(where_it_failed(exc, folder)) from None


def _arguments() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m protocol.run", description=__doc__)
    parser.add_argument("bot", nargs="?", default="", help="path/bot.py, path/bot.py:Class or module:Class")
    parser.add_argument("--pascal", metavar="LIBRARY", default="",
                        help="serve a compiled Pascal module's library instead (SPEC.md section 12)")
    parser.add_argument("--interface", metavar="MODULE", default="", help="with --pascal: the game's pascal.py")
    parser.add_argument("--option", "-o", action="append", default=[], metavar="KEY=VALUE",
                        help="bot option (JSON value or string); repeatable")
    parser.add_argument("--options-json", default="", help="bot options as one JSON map")
    parser.add_argument("--name", default="", help="name to present in hello")
    parser.add_argument("--stdio", action="store_true",
                        help="speak JSON lines on stdin/stdout (SPEC.md section 10) instead of ZeroMQ")
    parser.add_argument("--check", action="store_true",
                        help="only load the bot and build it with its options, then exit: 0, or 2 with the reason "
                             "(what the arena asks before a match)")
    parser.add_argument("--connect", metavar="tcp://HOST:PORT", default="",
                        help="play on another machine's referee over TCP with CURVE (SPEC.md section 13)")
    parser.add_argument("--server-key", metavar="FILE", default="",
                        help="with --connect: the referee's public key file")
    parser.add_argument("--key", metavar="FILE", default="",
                        help="with --connect: this bot's secret key file (NAME.key_secret of arena keys new)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Command-line entry: load the bot, read the environment, serve."""
    parser = _arguments()
    args = parser.parse_args(argv)
    if bool(args.bot) == bool(args.pascal) or bool(args.pascal) != bool(args.interface):
        parser.error("name one bot: BOT, or --pascal LIBRARY with --interface MODULE")
    if args.check:
        try:
            build(args)
        except BotLoadError as exc:
            print(f"cannot start bot: {exc}", file=sys.stderr)  # the last line: the failure's detail
            return 2
        return 0
    remote: tuple[bytes, bytes, bytes] | None = None
    if args.connect or args.server_key or args.key:
        if not (args.connect and args.server_key and args.key) or args.stdio:
            parser.error("--connect needs --server-key and --key (and no --stdio)")
        from protocol.keys import KeyFileError, key_name, read_key_file

        try:
            server_key = read_key_file(args.server_key)[0]
            public, secret = read_key_file(args.key, secret=True)
        except KeyFileError as exc:
            print(f"cannot connect: {exc}", file=sys.stderr)
            return 2
        assert secret is not None  # narrowing: secret=True requires it
        remote = (server_key, public, secret)
        args.name = args.name or key_name(args.key)
    pipes = protocol_pipes() if args.stdio else None
    endpoint, token = os.environ.get(ENV_ENDPOINT), os.environ.get(ENV_TOKEN)
    if pipes is None and remote is None and (not endpoint or not token):
        print(f"{ENV_ENDPOINT} and {ENV_TOKEN} must be set (the referee sets them)", file=sys.stderr)
        return 2
    try:
        bot = build(args)
    except BotLoadError as exc:
        print(f"cannot start bot: {exc}", file=sys.stderr)  # the last line: the failure's detail
        return 2
    try:
        if pipes is not None:
            return serve_stdio(bot, *pipes, name=args.name)
        if remote is not None:
            return serve_remote(bot, args.connect, *remote, name=args.name)
        return serve(bot, str(endpoint), str(token), args.name)
    except Exception:  # a bug in the bot: report it, exit non-zero (the referee sees a crash)
        traceback.print_exc()
        return 1


if __name__ == "__main__":
    sys.exit(main())
