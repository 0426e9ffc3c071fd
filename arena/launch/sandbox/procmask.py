"""Neutral stand-ins for the /proc files that show the machine, bound over them in bwrap and uid's box.

A bot's /proc is its own pid namespace's, but some files in it are global: the kernel
keyring (`keys`, `key-users`: other uids' keys), the file locks (`locks`: a pid namespace
hides other processes' POSIX and flock locks there, not their open-file-description locks,
whose offsets another bot chooses) and the machine's CPU counters (`stat`,
`loadavg`, `uptime`'s idle time, `schedstat`, `pressure/*`), which show how much CPU the
other seat is using: a timing side channel. Each is replaced by well-formed content with
zeros, which bwrap (`--ro-bind-data`, arena.launch.sandbox.sandbox) or uidbox.py copies from a
descriptor and binds read-only over the file (docs/isolation.md). `stat` and `schedstat` keep
one line per CPU of the machine, so runtimes that count CPUs there still count right.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

PROC = Path("/proc")
PRESSURE = "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"


def _cpu_names(stat: str) -> list[str]:
    """The per-CPU lines' names (cpu0, cpu1, ...) of a real /proc/stat, in its order."""
    return [line.split()[0] for line in stat.splitlines() if line.startswith("cpu") and line[3:4].isdigit()]


def neutral_stat(real: str) -> str:
    """/proc/stat with every counter at zero, one line per CPU of real, no boot time."""
    zeros = " ".join(["0"] * 10)
    lines = [f"cpu  {zeros}", *(f"{name} {zeros}" for name in _cpu_names(real))]
    lines += ["intr 0", "ctxt 0", "btime 0", "processes 0", "procs_running 1", "procs_blocked 0",
              "softirq " + " ".join(["0"] * 11)]
    return "\n".join(lines) + "\n"


def neutral_schedstat(real: str) -> str:
    """/proc/schedstat of the same version with every counter at zero and no domains."""
    version = next((line for line in real.splitlines() if line.startswith("version")), "version 15")
    return "\n".join([version, "timestamp 0", *(f"{name} {' '.join(['0'] * 9)}" for name in _cpu_names(real))]) + "\n"


def neutral_contents(proc: Path = PROC) -> dict[str, str]:
    """What replaces each masked file of proc that exists here (path relative to /proc)."""
    def read(name: str) -> str | None:
        try:
            return (proc / name).read_text()
        except OSError:
            return None

    contents = {"keys": "", "key-users": "", "locks": "", "loadavg": "0.00 0.00 0.00 1/1 1\n", "uptime": "0.00 0.00\n"}
    stat = read("stat")
    if stat is not None:
        contents["stat"] = neutral_stat(stat)
    schedstat = read("schedstat")
    if schedstat is not None:
        contents["schedstat"] = neutral_schedstat(schedstat)
    if (proc / "pressure").is_dir():
        for entry in sorted((proc / "pressure").iterdir()):
            contents[f"pressure/{entry.name}"] = PRESSURE
    return {name: text for name, text in contents.items() if "/" in name or (proc / name).exists()}


@lru_cache(maxsize=1)
def masks() -> tuple[tuple[str, bytes], ...]:
    """(/proc path, neutral content) of every masked file this machine has: computed once per process."""
    return tuple((f"/proc/{name}", text.encode()) for name, text in neutral_contents().items())
