"""BOT specs of the command line and configs: registered names, Python bots, `exec:` programs."""

from __future__ import annotations

import dataclasses
import json
import os
import shlex
import sys
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.games import UnknownGame, game_module, game_names
from arena.launch.sandbox.sandbox import own_files_dir, shown_to_every_bot
from arena.launch.specs.pascal_source import RULES, contest_problem
from arena.launch.specs.plugins import bots_for, registered_bot
from protocol.keys import NAME_PATTERN as KEY_NAME
from protocol.options import KeyValueError, parse_key_values


class BotSpecError(ValueError):
    """A BOT spec names no bot that can be started."""


class BotOptionsError(BotSpecError):
    """A registered bot refuses the options it was given."""


class Wire(StrEnum):
    """How a bot and the referee talk (the `transport` of a bot entry or a tournament, `--transport`)."""

    ZEROMQ = "zeromq"  # protocol v1 over ZeroMQ with msgpack (SPEC.md sections 1-9): the default
    PIPES = "pipes"  # the same messages as JSON lines on the bot's own stdin and stdout (section 10)


class BotKind(StrEnum):
    """How a bot is started."""

    REGISTERED = "registered"  # a name from the `arena.bots` entry points, served by protocol.run
    PYTHON = "python"  # path/bot.py[:Class] or module:Class, served by protocol.run
    EXEC = "exec"  # any program speaking the protocol through ARENA_ENDPOINT/ARENA_TOKEN
    STDIO = "stdio"  # any program speaking the protocol as JSON lines on stdin/stdout
    PASCAL = "pascal"  # a 2001-contest Turbo Pascal module, compiled into a library protocol.run serves
    REMOTE = "remote"  # a bot on another machine that connects over TCP with its CURVE key (remote:NAME)

    @property
    def served(self) -> bool:
        """True for a bot the SDK serves (protocol.run): it speaks either wire, ZeroMQ unless told otherwise."""
        return self in (BotKind.PYTHON, BotKind.REGISTERED, BotKind.PASCAL)

    @property
    def greets(self) -> bool:
        """True for a bot whose first line on pipes is a hello (the SDK's, once the bot's code is loaded)."""
        return self.served


@dataclass(frozen=True)
class BotSpec:
    """A parsed BOT spec: what to run, and the name it plays under."""

    text: str
    kind: BotKind
    target: str  # module:Class or path for Python bots, the command line for exec bots
    argv: tuple[str, ...]
    options: dict[str, Any] = field(default_factory=dict, hash=False)
    display: str = ""
    files: str = ""  # the bot's own folder (resolved), shown read-only in a sandbox; "" for none
    wire: Wire = Wire.ZEROMQ
    interface: str = ""  # a Pascal module's game interface: the module of the game folder's pascal.py

    @property
    def name(self) -> str:
        """The name shown in results: the display name, else a short one made from the spec."""
        return self.display or short_name(self)


def short_name(spec: BotSpec) -> str:
    """A readable default name: `greedy_max` for `../bots/greedy_max.py`, `mine.js` for `stdio:node other/mine.js`.

    Registered bots keep their spec (`smart:difficulty=5`); a file keeps its options (`fewest:depth=3`).
    """
    if spec.kind == BotKind.REGISTERED:
        return spec.text
    if spec.kind == BotKind.REMOTE:
        return spec.target
    if spec.kind == BotKind.PASCAL:
        head, sep, tail = spec.text[len("pascal:"):].rpartition(":")
        path, options = (head, tail) if sep and "=" in tail else (spec.text[len("pascal:"):], "")
        return Path(path).stem + (f":{options}" if options else "")
    if spec.kind == BotKind.PYTHON:
        head, _, tail = spec.text.partition(":")
        if head.endswith(".py"):  # path/bot.py[:Class][:key=value,...]
            return Path(head).stem + (f":{tail}" if tail else "")
        return tail or head  # module:Class[:key=value,...]: the class
    # exec: and stdio: commands are named by the program's file (a script after an interpreter).
    files = [word for word in spec.argv[1:] if not word.startswith("-") and os.path.isfile(word)]
    return os.path.basename(files[0] if files else spec.argv[0]) or spec.text


def unique_names(names: list[str], fixed: list[bool] | None = None) -> list[str]:
    """The names made unique within a run: a repeated one gets -2, -3, ... (names in fixed are kept)."""
    fixed = fixed or [False] * len(names)
    taken = {name for name, keep in zip(names, fixed) if keep}
    out = []
    for name, keep in zip(names, fixed):
        if keep:
            out.append(name)
            continue
        candidate, n = name, 2
        while candidate in taken:
            candidate, n = f"{name}-{n}", n + 1
        taken.add(candidate)
        out.append(candidate)
    return out


def _python_argv(target: str, options: dict[str, Any], wire: Wire) -> tuple[str, ...]:
    argv = [sys.executable, "-m", "protocol.run", *(("--stdio",) if wire == Wire.PIPES else ()), target]
    if options:
        argv += ["--options-json", json.dumps(options, sort_keys=True)]
    return tuple(argv)


def served_argv(spec: BotSpec, program: str) -> tuple[str, ...]:
    """The command serving a compiled Pascal module (its library at program) on the spec's wire."""
    return (sys.executable, "-m", "protocol.run", *(("--stdio",) if spec.wire == Wire.PIPES else ()),
            "--pascal", program, "--interface", spec.interface)


def with_wire(spec: BotSpec, wire: Wire) -> BotSpec:
    """The spec on another wire; BotSpecError for a program that speaks only one (exec:, stdio:)."""
    if spec.wire == wire:
        return spec
    if not spec.kind.served:
        if spec.kind == BotKind.REMOTE:
            raise BotSpecError(f"{spec.text}: a remote bot plays over TCP (with CURVE); transport is for bots the "
                               "arena starts")
        if spec.kind == BotKind.EXEC:
            raise BotSpecError(f"{spec.text}: an exec: program speaks ZeroMQ; transport pipes is for Python bots "
                               "and Pascal modules (start a program that speaks JSON lines as stdio:COMMAND)")
        raise BotSpecError(f"{spec.text}: a stdio: program speaks on its pipes; transport zeromq is for Python "
                           "bots and Pascal modules (start a ZeroMQ program as exec:COMMAND)")
    argv = spec.argv if spec.kind == BotKind.PASCAL else _python_argv(spec.target, spec.options, wire)
    return dataclasses.replace(spec, argv=argv, wire=wire)


def default_wire(spec: BotSpec, wire: Wire | None) -> BotSpec:
    """The spec on a tournament's (or command line's) wire where it can choose; exec: and stdio: keep theirs."""
    return with_wire(spec, wire) if wire is not None and spec.kind.served else spec


def parse_wire(text: str) -> Wire:
    """A `transport` value; BotSpecError naming the choices."""
    try:
        return Wire(text)
    except ValueError:
        raise BotSpecError(f"transport {text!r} is not zeromq or pipes") from None


def parse_options(text: str) -> dict[str, Any]:
    """Parse `k=v,k=v` (values JSON when they parse, else strings)."""
    try:
        return parse_key_values(filter(None, text.split(",")))
    except KeyValueError as exc:
        raise BotSpecError(f"bot option {exc.pair!r} is not KEY=VALUE") from None


def check_options(target: str, text: str, options: dict[str, Any]) -> None:
    """Build a registered (trusted) bot once, so bad options fail here, not in every match."""
    from protocol.options import build_bot
    from protocol.run import BotLoadError, load_bot_class

    try:
        build_bot(load_bot_class(target), options)
    except BotLoadError as exc:
        raise BotSpecError(str(exc)) from None
    except (TypeError, ValueError) as exc:
        raise BotOptionsError(f"bad options for {text}: {exc}") from None


def _check_pascal(path: Path, text: str, options: dict[str, Any]) -> None:
    """A module's options (`rules`), and under the contest's rules its source, checked before anything runs."""
    unknown = sorted(set(options) - {"rules"})
    if unknown:
        raise BotOptionsError(f"bad options for {text}: a Pascal module has one option, rules, not {unknown[0]!r}")
    rules = options.get("rules", "contest")
    if rules not in RULES:
        raise BotOptionsError(f"bad options for {text}: rules must be contest or fpc, not {rules!r}")
    if rules == "contest":
        try:
            source = path.read_bytes().decode("latin-1")  # byte for byte, as fpc reads it
        except OSError as exc:
            raise BotSpecError(f"cannot read Pascal module {path}: {exc.strerror}") from None
        problem = contest_problem(source, path.name)
        if problem:
            raise BotSpecError(problem)


def pascal_interface(game: str) -> str:
    """The module of a game's Pascal interface (its folder's pascal.py); BotSpecError when it has none."""
    try:
        module = game_module(game, "pascal")
    except UnknownGame:
        module = None
    if module is None:
        having = [name for name in game_names() if game_module(name, "pascal") is not None]
        raise BotSpecError(f"pascal: modules play the games whose folder has a Pascal interface (pascal.py): "
                           f"{', '.join(having) or 'none'}; {game} has none")
    return module.__name__


def _absolute_words(words: list[str]) -> list[str]:
    """Make the program and any existing relative path absolute (bots run in their own dir)."""
    out = []
    for i, word in enumerate(words):
        if not os.path.isabs(word) and (os.path.exists(word) and ("/" in word or i > 0)):
            word = os.path.abspath(word)
        out.append(word)
    return out


def _file_folder(path: Path) -> str:
    """The own folder of a bot file: its directory, unless the project or Python already shows it (public code)."""
    folder = str(path.resolve().parent)
    return "" if shown_to_every_bot(folder) else folder


def parse_bot_spec(
    text: str, game: str, options: dict[str, Any] | None = None, display: str = "", wire: Wire | None = None
) -> BotSpec:
    """Parse one BOT spec for a game, on the wire asked for (else its own); raises BotSpecError naming what is wrong."""
    spec = _parse(text, game, options, display)
    return spec if wire is None else with_wire(spec, wire)


def _parse(text: str, game: str, options: dict[str, Any] | None, display: str) -> BotSpec:
    options = dict(options or {})
    if not isinstance(text, str) or not text.strip():
        raise BotSpecError("empty bot spec")
    text = text.strip()
    for prefix, kind in (("exec:", BotKind.EXEC), ("stdio:", BotKind.STDIO)):
        if text.startswith(prefix):
            return _parse_command(text, prefix, kind, options, display)
    if text.startswith("remote:"):
        return _parse_remote(text, options, display)
    if text.startswith("pascal:"):
        return _parse_pascal(text, game, options, display)
    head, sep, tail = text.partition(":")
    if head.endswith(".py"):
        return _parse_file(text, head, tail, options, display)
    registered = registered_bot(game, head)
    if registered is not None:
        if sep:
            options = {**parse_options(tail), **options}
        check_options(registered.target, text, options)
        return BotSpec(
            text, BotKind.REGISTERED, registered.target, _python_argv(registered.target, options, Wire.ZEROMQ),
            options, display,
        )
    class_name, _, option_text = tail.partition(":")  # module:Class[:key=value,...]
    if sep and class_name.isidentifier() and all(part.isidentifier() for part in head.split(".")):
        options = {**parse_options(option_text), **options}
        target = f"{head}:{class_name}"
        return BotSpec(text, BotKind.PYTHON, target, _python_argv(target, options, Wire.ZEROMQ), options, display)
    known = ", ".join(b.name for b in bots_for(game)) or "none"
    raise BotSpecError(
        f"unknown bot {text!r} for {game} (registered: {known}; or path/bot.py, module:Class, "
        "exec:COMMAND, stdio:COMMAND, pascal:unit.pas, remote:NAME)"
    )


def _parse_command(text: str, prefix: str, kind: BotKind, options: dict[str, Any], display: str) -> BotSpec:
    """`exec:COMMAND` or `stdio:COMMAND`: a program of the user's, its words split as a shell would."""
    try:
        words = shlex.split(text[len(prefix):])
    except ValueError as exc:
        raise BotSpecError(f"{text!r}: {exc}") from None
    if not words:
        raise BotSpecError(f"{text!r}: {prefix} needs a command")
    argv = tuple(_absolute_words(words))
    return BotSpec(text, kind, shlex.join(words), argv, options, display, files=own_files_dir(argv),
                   wire=Wire.PIPES if kind == BotKind.STDIO else Wire.ZEROMQ)


def _parse_remote(text: str, options: dict[str, Any], display: str) -> BotSpec:
    """`remote:NAME`: a bot that connects from elsewhere with the key NAME.key; it takes no options."""
    name = text[len("remote:"):]
    if not KEY_NAME.fullmatch(name):
        raise BotSpecError(f"{text!r}: remote:NAME names the bot's key file NAME.key (letters, digits, '_', "
                           "'.', '-')")
    if options:
        raise BotOptionsError(f"bad options for {text}: a remote bot takes no options")
    return BotSpec(text, BotKind.REMOTE, name, (), {}, display)


def _parse_pascal(text: str, game: str, options: dict[str, Any], display: str) -> BotSpec:
    """`pascal:PATH[:rules=fpc]`: a contest module, checked now, compiled at launch."""
    rest = text[len("pascal:"):]
    head, sep, tail = rest.rpartition(":")
    if sep and "=" in tail:  # pascal:PATH[:rules=fpc]
        rest, options = head, {**parse_options(tail), **options}
    path = Path(rest)
    if not path.is_file():
        raise BotSpecError(f"no such Pascal module: {path}")
    interface = pascal_interface(game)
    _check_pascal(path, text, options)
    # The command is known only once the module is compiled, at launch.
    return BotSpec(text, BotKind.PASCAL, str(path.resolve()), (), options, display, interface=interface)


def _parse_file(text: str, head: str, tail: str, options: dict[str, Any], display: str) -> BotSpec:
    """`path/bot.py[:Class][:key=value,...]`: a Python bot of the user's."""
    path = Path(head)
    if not path.is_file():
        raise BotSpecError(f"no such bot file: {head}")
    class_name, _, option_text = tail.partition(":")  # path.py[:Class][:key=value,...]
    if "=" in class_name:
        class_name, option_text = "", tail
    options = {**parse_options(option_text), **options}
    target = str(path.resolve()) + (f":{class_name}" if class_name else "")
    return BotSpec(text, BotKind.PYTHON, target, _python_argv(target, options, Wire.ZEROMQ), options, display,
                   files=_file_folder(path))
