"""`arena doctor`: what this machine offers to contain bots, and what each sandbox mode does here."""

from __future__ import annotations

import argparse
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from arena.launch.builds.archive import tarfile_filter_warning
from arena.launch.processes import cgroups
from arena.launch.sandbox import seccomp, uids
from arena.launch.sandbox.sandbox import (
    Sandbox,
    SandboxError,
    box_problem,
    bwrap_works,
    filter_problem,
    is_root,
    resolve_sandbox,
    unreachable,
)


def _bwrap_version() -> str:
    try:
        done = subprocess.run(["bwrap", "--version"], capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "?"
    return done.stdout.strip() or "?"


def _userns() -> str:
    try:
        count = int(Path("/proc/sys/user/max_user_namespaces").read_text())
    except (OSError, ValueError):
        return "unknown (no /proc/sys/user/max_user_namespaces)"
    if count == 0:
        return "disabled (user.max_user_namespaces = 0)"
    try:
        if Path("/proc/sys/kernel/unprivileged_userns_clone").read_text().strip() == "0":
            return "root only (kernel.unprivileged_userns_clone = 0)"
    except OSError:
        pass
    return f"available (up to {count})"


def _cgroup_lines() -> list[str]:
    lines = []
    base = cgroups.v2_base()
    if base is None:
        lines.append("cgroup v2: not writable here")
    else:
        delegated = [c for c in ("pids", "memory") if (base / f"{c}.max").exists() or
                     c in (base / "cgroup.subtree_control").read_text().split()]
        lines.append(f"cgroup v2: writable at {base.parent} (kill, freeze, CPU accounting"
                     f"{'; ' + ', '.join(delegated) + ' limits' if delegated else ''})")
    for controller in cgroups.V1_CONTROLLERS:
        v1 = cgroups.v1_base(controller)
        lines.append(f"cgroup v1 {controller}: {'writable at ' + str(v1.parent) if v1 else 'not available'}")
    freezer = cgroups.freezer()
    lines.append(f"strict alternation: a bot not on move is frozen ({freezer})" if freezer else
                 "strict alternation: unavailable (no writable cgroup freezer): bots not on move keep running")
    share = cgroups.cpu_share()
    lines.append(f"CPU share: one per bot, however many processes it starts ({share})" if share else
                 "CPU share: unavailable (no writable cpu controller): each process of a bot competes on its own")
    return lines


def _uid_pool() -> str:
    try:
        pool = uids.pool_range()
    except uids.UidPoolError as exc:
        return f"uid pool: {exc}"
    if not is_root():
        return f"uid pool: {pool.start}..{pool.stop - 1} (unused: not root)"
    taken = busy = 0
    for uid in pool:
        if uids._is_account(uid):
            taken += 1
            continue
        path = uids.LOCK_DIR / str(uid)
        if not path.exists():
            continue
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            busy += 1
        finally:
            os.close(fd)
    accounts = f", {taken} skipped as accounts of this machine" if taken else ""
    return (f"uid pool: {pool.start}..{pool.stop - 1} (ARENA_UID_BASE/ARENA_UID_COUNT), {busy} in use"
            f"{accounts}; locks in {uids.LOCK_DIR}")


def _filter_line() -> str:
    """Whether the system-call filter loads in the modes that use it here."""
    why = seccomp.supported()
    if why:
        return f"system-call filter: none ({why})"
    modes = ([Sandbox.BWRAP] if not bwrap_works() else []) + ([Sandbox.UID] if is_root() else [])
    if not modes:
        return "system-call filter: unused (no bwrap, not root)"
    active = [mode.value for mode in modes if not filter_problem(mode)]
    failing = [f"{mode.value}: {filter_problem(mode)}" for mode in modes if filter_problem(mode)]
    arch = seccomp.machine_arch()
    count = sum(name in arch.numbers for name in seccomp.REFUSED) if arch else 0
    parts = [f"active in {' and '.join(active)} ({count} calls refused, modelled on Docker's)"] if active else []
    return "system-call filter: " + "; ".join(parts + [f"not loaded in {f}" for f in failing])


def _channel_lines() -> list[str]:
    """What keeps bots that run at the same time from signalling each other through the machine."""
    modes = ([Sandbox.BWRAP] if not bwrap_works() else []) + ([Sandbox.UID] if is_root() else [])
    filtered = [mode.value for mode in modes if not seccomp.supported() and not filter_problem(mode)]
    if filtered:
        lines = [f"locks and watches on shared files: refused in {' and '.join(filtered)} (fcntl and flock locks: "
                 "ENOLCK; inotify, fanotify, dnotify: EPERM); /proc/locks shows bots nothing"]
    else:
        lines = ["locks and watches on shared files: open between bots (no system-call filter loads here); "
                 "arena serve refuses such a sandbox without --insecure"]
    if not is_root():
        lines.append("uid mode's own places: unused (not root)")
    elif box_problem():
        lines.append(f"uid mode's own places: unavailable ({box_problem()}): its bots share /tmp, /var/tmp, "
                     "/dev/shm and /proc (arena serve uses bwrap only)")
    else:
        lines.append("uid mode's own places: /tmp, /var/tmp and /dev/shm of the disk budget, a pid namespace with "
                     "its own /proc, the machine's files read-only")
    return lines


def report() -> list[str]:
    """The lines of `arena doctor`."""
    lines = [f"running as: uid {os.geteuid()}{' (root: bots get uids of their own)' if is_root() else ''}",
             f"user namespaces: {_userns()}"]
    why = bwrap_works()
    lines.append(f"bubblewrap: {_bwrap_version() + ', works' if not why else why}")
    for tool in ("setpriv", "prlimit"):
        lines.append(f"{tool}: {shutil.which(tool) or 'missing (apt-get install util-linux)'}")
    lines.append(_filter_line())
    lines += _channel_lines()
    lines += _cgroup_lines()
    lines.append(_uid_pool())
    blocked = unreachable(sys.executable)
    lines.append(f"arena's Python: {os.path.realpath(sys.executable)}"
                 + (f" (closed to other users at {blocked}: shown to bots only through bwrap)" if blocked else ""))
    risk = tarfile_filter_warning()
    if risk:
        lines.append(f"warning: {risk}")
    lines.append("modes:")
    for mode in Sandbox:
        try:
            lines.append(f"  {mode.value:5}  {resolve_sandbox(mode).note}")
        except SandboxError as exc:
            lines.append(f"  {mode.value:5}  unavailable: {exc}")
    return lines


def cmd_doctor(args: argparse.Namespace) -> int:
    """Print what this machine supports."""
    for line in report():
        print(line)
    return 0


def register(subparsers: Any) -> None:
    """Add `arena doctor` (called by arena.cli.main)."""
    parser = subparsers.add_parser("doctor", help="what this machine supports to contain bots")
    parser.set_defaults(func=cmd_doctor)
