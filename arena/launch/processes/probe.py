"""Before a match: does each Python bot load and build with its options, where it will run?

The SDK answers it (`python -m protocol.run BOT --check`), in the bot's own sandbox, uid and
limits: the arena never imports a bot's code itself. Only the SDK's own refusal (exit status 2,
last line `cannot start bot: …`) stops the run, as a one-line usage error in the user's own
paths; a probe that is slow or fails in any other way leaves the bot to the match, which records
whatever happens as its result.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

from arena.launch.processes.process import BotProcess, LaunchError, Limits
from arena.launch.sandbox.sandbox import Sandbox
from arena.launch.specs.botspec import BotKind, BotSpec

PROBE_SECONDS = 10.0  # for all probes together; a bot that loads slower is left to the match's clock
REFUSAL = "cannot start bot: "  # the SDK's last line when it cannot start a bot (protocol/run.py)


def probed(spec: BotSpec) -> bool:
    """True for the bots a probe asks: Python files and modules, served by the SDK."""
    return spec.kind == BotKind.PYTHON


def _user_words(spec: BotSpec, process: BotProcess, text: str) -> str:
    """The SDK's message with the file as the bot saw it (`/bot/mine.py`) written as the user gave it."""
    head = spec.text.partition(":")[0]
    if not head.endswith(".py") or spec.target not in spec.argv:
        return text  # module:Class: named by its module, the same here and there
    shown = process.command[spec.argv.index(spec.target)] if process.command else spec.target
    if ".py:" in shown:
        shown = shown.rpartition(":")[0]
    return text.replace(shown, head)


def check_starts(specs: Sequence[BotSpec], sandbox: Sandbox, limits: Limits | None = None) -> None:
    """LaunchError, in one line naming the bot, when the SDK cannot start one of the Python bots.

    The probes run side by side (one wait in all); MachineError when the machine refuses a process.
    """
    processes: list[tuple[BotSpec, BotProcess]] = []
    try:
        for spec in specs:
            if probed(spec):
                process = BotProcess(dataclasses.replace(spec, argv=(*spec.argv, "--check")), "", "",
                                     limits, sandbox=sandbox)
                processes.append((spec, process))
                process.start()
        deadline = time.monotonic() + PROBE_SECONDS
        for spec, process in processes:
            if not process.wait_exit(max(0.0, deadline - time.monotonic())) or process.poll() != 2:
                continue  # still loading, or ended some other way: the match will say
            process.drain_output()
            line = process.output.last_line()
            if line.startswith(REFUSAL):
                said = _user_words(spec, process, line[len(REFUSAL):])
                file = spec.text.partition(":")[0]
                raise LaunchError(said if said.startswith(f"{file} ") or said.startswith(f"{file},")
                                  else f"cannot start {spec.text}: {said}")
    finally:
        for _, process in processes:
            process.kill()
