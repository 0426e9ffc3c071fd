"""What the sandbox costs: a bot's launch (start to hello) and a tournament's throughput.

    python bench/sandbox.py [--launches N] [--games N] [--workers N]

Launch: the median time from starting a registered Python bot to its hello on the
referee's socket, in each mode this machine supports (`arena doctor`), against `none`; and
what `uid` mode's box (its own scratch places, pids and /proc) adds to a launch, measured
with and without it in turn.
Throughput: matches/s of bench/tournament.py's persistent-bot round robin in the default
mode (`auto`) against `none`, measured one after the other in the same run. Goal: a
sandboxed persistent-bot tournament at >= 80 % of the unsandboxed throughput (persistent
bots start once).
"""

from __future__ import annotations

import argparse
import os
import select
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from arena.launch.processes.process import BotProcess, Limits  # noqa: E402
from arena.launch.sandbox.sandbox import Sandbox, check_sandbox, resolve_sandbox  # noqa: E402
from arena.launch.specs.botspec import parse_bot_spec  # noqa: E402
from arena.match.hub import Hub  # noqa: E402
from arena.match.onematch import launch_player  # noqa: E402
from bench.tournament import config, run  # noqa: E402


def launch_ms(mode: Sandbox, launches: int) -> list[float]:
    """Milliseconds from launch to the bot's hello, once per launch."""
    spec = parse_bot_spec("random", "blocking")
    times = []
    hub = Hub()
    try:
        for _ in range(launches):
            started = time.perf_counter()
            player = launch_player(hub, spec, Limits(), mode)
            if player.launch_error:
                raise RuntimeError(player.launch_error)
            deadline = time.monotonic() + 30
            poller = select.poll()  # the seat's pipe (a registered bot talks on its pipes)
            for item in player.link.fds():
                if isinstance(item, int):
                    poller.register(item, select.POLLIN)
            while not player.link.connected and time.monotonic() < deadline:
                poller.poll(5)
                player.link.pump()
            times.append((time.perf_counter() - started) * 1000)
            player.link.send({"type": "bye"})
            if player.process is not None:
                player.process.wait_exit(2)
                player.process.kill()
            hub.forget(player.link)
    finally:
        hub.close()
    return times


def chain_ms(mode: Sandbox, launches: int) -> list[float]:
    """Milliseconds to start /bin/true through the whole launch chain and see it exit."""
    spec = parse_bot_spec("exec:/bin/true", "blocking")
    times = []
    for _ in range(launches):
        process = BotProcess(spec, "", "", Limits(), sandbox=mode)
        started = time.perf_counter()
        process.start()
        process.wait_exit(30)
        times.append((time.perf_counter() - started) * 1000)
        process.kill()
    return times


def compare(label: str, measure: Callable[[Sandbox, int], list[float]], launches: int) -> None:
    """Print the median of measure in each available mode against `none`."""
    base = statistics.median(measure(Sandbox.NONE, launches))
    print(f"{label}, none: median {base:.1f} ms over {launches}")
    for mode in (Sandbox.UID, Sandbox.BWRAP):
        try:
            check_sandbox(mode)
            median = statistics.median(measure(mode, launches))
        except Exception as exc:  # noqa: BLE001 - unavailable, or uid mode cannot reach a Python under /root
            print(f"{label}, {mode}: not measured ({exc})")
            continue
        print(f"{label}, {mode}: median {median:.1f} ms (+{median - base:.1f} ms, {median / base:.2f}x none)")


def box_cost(launches: int) -> None:
    """Print the launch chain's median in `uid` mode with its box and without it, measured in turn."""
    from arena.launch.sandbox import sandbox

    if sandbox.box_problem():
        print(f"uid mode's box: not measured ({sandbox.box_problem()})")
        return
    times: dict[bool, list[float]] = {True: [], False: []}
    real = sandbox.box_problem
    try:
        for _ in range(launches):
            for box in (True, False):
                sandbox.resolve_sandbox.cache_clear()
                sandbox.box_problem = real if box else (lambda: "measured without it")  # type: ignore[assignment]
                times[box] += chain_ms(Sandbox.UID, 1)
    finally:
        sandbox.box_problem = real
        sandbox.resolve_sandbox.cache_clear()
    with_box, without = statistics.median(times[True]), statistics.median(times[False])
    print(f"launch chain of /bin/true, uid with its box: median {with_box:.1f} ms, without: {without:.1f} ms "
          f"(+{with_box - without:.1f} ms) over {launches}")


def main(argv: list[str] | None = None) -> int:
    """Run both measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launches", type=int, default=20)
    parser.add_argument("--games", type=int, default=200, help="games per pairing (6 pairings)")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    print(f"cores {len(os.sched_getaffinity(0))}, uid {os.geteuid()}, python {sys.version.split()[0]}")
    compare("launch chain of /bin/true", chain_ms, args.launches)
    compare("launch to hello of a Python bot", launch_ms, args.launches)
    if os.geteuid() == 0:
        box_cost(args.launches)
    effective = resolve_sandbox(Sandbox.AUTO).mode
    rates = {}
    for mode in ("auto", "none"):
        matches, seconds = run(config(args.games, persistent=True, logs=True, sandbox=mode), args.workers)
        rates[mode] = matches / seconds
        print(f"tournament, sandbox {mode}{f' ({effective})' if mode == 'auto' else ''}: {matches} matches "
              f"in {seconds:.2f} s = {rates[mode]:.1f} matches/s")
    print(f"sandboxed / unsandboxed throughput: {rates['auto'] / rates['none']:.0%} (goal >= 80 %)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
