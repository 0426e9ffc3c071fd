"""The system-call filter: its program run on a small BPF interpreter, and where the launch chain loads it."""

from __future__ import annotations

import errno
import os
import re
import struct
from dataclasses import replace
from pathlib import Path

import pytest

from arena.launch.sandbox import procmask, sandbox, seccomp
from arena.launch.sandbox.sandbox import ChainPlan, Isolation, Sandbox, launch_chain
from arena.launch.sandbox.seccomp import ARCHES, Arch, Instruction

ALLOW = "allow"
X86_64, AARCH64 = ARCHES["x86_64"], ARCHES["aarch64"]
I386 = 0x40000003  # AUDIT_ARCH_I386


def run_filter(program: list[Instruction], nr: int, arch: int, args: tuple[int, ...] = ()) -> str:
    """What the kernel would answer: "allow", or the errno name; fails on any step it could not take."""
    data = struct.pack("<iIQ6Q", nr, arch, 0, *(list(args) + [0] * 6)[:6])
    pc = accumulator = 0
    for _ in range(len(program)):
        step = program[pc]
        if step.code == seccomp.LD_W_ABS:
            assert step.k % 4 == 0 and step.k + 4 <= len(data), step
            accumulator = struct.unpack_from("<I", data, step.k)[0]
            pc += 1
        elif step.code == seccomp.RET_K:
            if step.k == seccomp.SECCOMP_RET_ALLOW:
                return ALLOW
            assert step.k & 0xFFFF0000 == seccomp.SECCOMP_RET_ERRNO, step
            return errno.errorcode[step.k & 0xFFFF]
        else:
            held = {seccomp.JEQ_K: accumulator == step.k, seccomp.JGT_K: accumulator > step.k,
                    seccomp.JGE_K: accumulator >= step.k, seccomp.JSET_K: bool(accumulator & step.k)}[step.code]
            pc += 1 + (step.jt if held else step.jf)
        assert 0 <= pc < len(program), f"a jump leaves the program at {pc}"
    raise AssertionError("the program loops")


@pytest.mark.parametrize("arch", [X86_64, AARCH64], ids=lambda a: a.name)
def test_every_jump_lands_inside_and_every_path_returns(arch: Arch) -> None:
    program = seccomp.program(arch)
    assert len(program) <= seccomp.MAX_INSTRUCTIONS and program[-1] == seccomp.ALLOW
    assert len(seccomp.encode(program)) < 4096
    for index, step in enumerate(program):
        assert step.code in (seccomp.LD_W_ABS, seccomp.RET_K, seccomp.JEQ_K, seccomp.JGT_K, seccomp.JGE_K,
                             seccomp.JSET_K), step
        if step.code not in (seccomp.LD_W_ABS, seccomp.RET_K):
            assert index + 1 + max(step.jt, step.jf) < len(program) and max(step.jt, step.jf) <= 255, (index, step)
    encoded = seccomp.encode(program)
    assert len(encoded) == 8 * len(program)
    last = struct.unpack_from("=HBBI", encoded, 8 * (len(program) - 1))
    assert last == (seccomp.RET_K, 0, 0, seccomp.SECCOMP_RET_ALLOW)


@pytest.mark.parametrize("arch", [X86_64, AARCH64], ids=lambda a: a.name)
def test_each_refused_call_gets_eperm_and_the_others_pass(arch: Arch) -> None:
    program = seccomp.program(arch)
    refused = {arch.numbers[name] for name in seccomp.REFUSED if name in arch.numbers}
    assert {arch.numbers[n] for n in ("keyctl", "add_key", "request_key", "unshare", "setns", "mount", "ptrace",
                                      "process_vm_readv", "pidfd_getfd", "bpf", "perf_event_open", "userfaultfd",
                                      "init_module", "kexec_load", "io_uring_setup")} <= refused
    special = {arch.numbers[n] for n in ("clone", "clone3", "personality", "socket", "fcntl", *seccomp.NO_LOCKS)}
    for nr in range(seccomp.LAST_REVIEWED + 1):
        if nr not in special:
            assert run_filter(program, nr, arch.audit) == ("EPERM" if nr in refused else ALLOW), nr
    for nr in (seccomp.LAST_REVIEWED + 1, 999, seccomp.X32_SYSCALL_BIT - 1):
        assert run_filter(program, nr, arch.audit) == "ENOSYS"  # newer than this review: "no such call"
    assert run_filter(program, arch.numbers["clone3"], arch.audit) == "ENOSYS"  # libc falls back to clone


@pytest.mark.parametrize("arch", [X86_64, AARCH64], ids=lambda a: a.name)
def test_arguments_decide_clone_personality_and_socket(arch: Arch) -> None:
    program, nr = seccomp.program(arch), arch.numbers
    thread = 0x3D0F00  # glibc's pthread_create flags
    assert run_filter(program, nr["clone"], arch.audit, (thread,)) == ALLOW
    assert run_filter(program, nr["clone"], arch.audit, (0x01200011,)) == ALLOW  # fork()
    for flag in (0x20000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000):
        assert run_filter(program, nr["clone"], arch.audit, (thread | flag,)) == "EPERM", hex(flag)
    assert run_filter(program, nr["clone"], arch.audit, (0x10000000 | 1 << 32,)) == "EPERM"
    for persona in seccomp.PERSONALITIES:
        assert run_filter(program, nr["personality"], arch.audit, (persona,)) == ALLOW
    assert run_filter(program, nr["personality"], arch.audit, (0x0040000,)) == "EPERM"  # ADDR_NO_RANDOMIZE
    for family in (1, 2, 10, 16, 39, 41):
        assert run_filter(program, nr["socket"], arch.audit, (family, 1, 0)) == ALLOW
    for family in seccomp.REFUSED_FAMILIES:
        assert run_filter(program, nr["socket"], arch.audit, (family, 1, 0)) == "EPERM"


@pytest.mark.parametrize("arch", [X86_64, AARCH64], ids=lambda a: a.name)
def test_no_lock_and_no_watch_on_a_file(arch: Arch) -> None:
    program, nr = seccomp.program(arch), arch.numbers
    assert run_filter(program, nr["flock"], arch.audit, (3, 2)) == "ENOLCK"  # LOCK_EX
    locks = {5: "F_GETLK", 6: "F_SETLK", 7: "F_SETLKW", 36: "F_OFD_GETLK", 37: "F_OFD_SETLK", 38: "F_OFD_SETLKW",
             1024: "F_SETLEASE"}
    for command in locks:
        assert run_filter(program, nr["fcntl"], arch.audit, (3, command)) == "ENOLCK", locks[command]
        assert run_filter(program, nr["fcntl"], arch.audit, (command, 0)) == ALLOW  # the descriptor is no command
    assert run_filter(program, nr["fcntl"], arch.audit, (3, 1026)) == "EPERM"  # F_NOTIFY (dnotify)
    # What programs use fcntl for: F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD_CLOEXEC, F_GETLEASE,
    # F_SETPIPE_SZ, F_GETPIPE_SZ, F_ADD_SEALS, F_GET_SEALS.
    for command in (0, 1, 2, 3, 4, 1030, 1025, 1031, 1032, 1033, 1034):
        assert run_filter(program, nr["fcntl"], arch.audit, (3, command)) == ALLOW, command
    assert run_filter(program, nr["fcntl"], arch.audit, (3, 6 | 1 << 32)) == "ENOLCK"  # the kernel reads 32 bits
    for name in ("inotify_init1", "inotify_add_watch", "fanotify_init", "fanotify_mark"):
        assert run_filter(program, nr[name], arch.audit) == "EPERM", name
    assert arch.name != "x86_64" or run_filter(program, nr["inotify_init"], arch.audit) == "EPERM"


def test_foreign_abis_get_nothing() -> None:
    program = seccomp.program(X86_64)
    for nr in (0, 20, 39):
        assert run_filter(program, nr, I386) == "EPERM"  # i386 through int 0x80: other numbers, other rules
        assert run_filter(program, seccomp.X32_SYSCALL_BIT | nr, X86_64.audit) == "EPERM"
    assert run_filter(seccomp.program(AARCH64), 39, X86_64.audit) == "EPERM"


def _header_numbers(path: str) -> dict[str, int]:
    text = Path(path).read_text() if Path(path).exists() else ""
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"#define __NR_(\w+)\s+(\d+)\b", text)}


@pytest.mark.parametrize("arch, header", [(X86_64, "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
                                          (AARCH64, "/usr/include/asm-generic/unistd.h")], ids=["x86_64", "aarch64"])
def test_numbers_match_the_kernel_headers(arch: Arch, header: str) -> None:
    known = _header_numbers(header)
    if not known:
        pytest.skip(f"no {header} (linux-libc-dev)")
    checked = [name for name in arch.numbers if name in known]
    assert len(checked) >= 40, checked  # the rest are newer than these headers
    assert {name: arch.numbers[name] for name in checked} == {name: known[name] for name in checked}
    assert set(seccomp.REFUSED) <= set(ARCHES["x86_64"].numbers)  # every name is a real call, not a typo


def test_an_unknown_architecture_says_so_in_one_line() -> None:
    why = seccomp.supported("riscv64")
    assert "riscv64" in why and "x86_64" in why and "\n" not in why
    with pytest.raises(ValueError, match="riscv64"):
        seccomp.program_bytes("riscv64")
    assert seccomp.supported("x86_64") == seccomp.supported("arm64") == ""


def test_neutral_proc_files_keep_the_cpu_lines_and_nothing_else(tmp_path: Path) -> None:
    (tmp_path / "stat").write_text("cpu  5 6 7 8 9 1 2 3 0 0\ncpu0 1 2 3 4 5 6 7 8 0 0\ncpu2 9 9 9 9 9 9 9 9 0 0\n"
                                   "intr 77 1 2\nctxt 4242\nbtime 1795663268\nprocesses 19268\n")
    (tmp_path / "schedstat").write_text("version 15\ntimestamp 4297\ncpu0 0 0 0 0 0 0 1 2 3\ndomain0 3 1 2\n"
                                        "cpu2 0 0 0 0 0 0 4 5 6\n")
    (tmp_path / "keys").write_text("06d9381a I--Q---     1 perm 0c030000     0 65534 keyring   .user_reg: 2\n")
    (tmp_path / "pressure").mkdir()
    (tmp_path / "pressure" / "cpu").write_text("some avg10=9.70 avg60=18.55 avg300=26.61 total=177354263\n")
    contents = procmask.neutral_contents(tmp_path)
    assert contents["keys"] == "" and "key-users" not in contents and "loadavg" not in contents  # only what exists
    stat = contents["stat"].splitlines()
    assert [line.split()[0] for line in stat if line.startswith("cpu")] == ["cpu", "cpu0", "cpu2"]
    assert all(set(line.split()[1:]) <= {"0", "1"} for line in stat), stat  # procs_running 1, all else 0
    assert "btime 0" in stat and not any("4242" in line or "1795663268" in line for line in stat)
    assert contents["schedstat"] == "version 15\ntimestamp 0\ncpu0 0 0 0 0 0 0 0 0 0\ncpu2 0 0 0 0 0 0 0 0 0\n"
    assert contents["pressure/cpu"] == procmask.PRESSURE


def test_uid_mode_loads_the_filter_as_root_after_unshare_and_before_setpriv() -> None:
    isolation = Isolation(Sandbox.UID, True, "uid", syscall_filter=True)
    plan = ChainPlan(command=("bot",), isolation=isolation, workdir="/tmp/w", uid=60123, limit_args=("--nofile=9",))
    with launch_chain(plan) as (argv, fds):
        assert len(fds) == 1 and os.read(fds[0], 1 << 16) == seccomp.program_bytes()
        wrapper = argv.index(str(sandbox.FILTER_EXEC))
        assert argv[wrapper + 1:wrapper + 3] == [str(fds[0]), "--"] and argv[wrapper - 2:wrapper] == ["-I", "-S"]
        order = [argv.index(word) for word in ("unshare", str(sandbox.FILTER_EXEC), "setpriv", "prlimit", "bot")]
        assert order == sorted(order), argv
        assert argv[:argv.index("--")] == list(sandbox.UNSHARE) and str(sandbox.UID_BOX) not in argv
    with pytest.raises(OSError):
        os.fstat(fds[0])  # the arena's copy is closed once the chain has started


def test_uid_mode_builds_its_box_in_unshare_s_namespaces_before_the_filter() -> None:
    isolation = Isolation(Sandbox.UID, True, "uid", syscall_filter=True, box=True)
    plan = ChainPlan(command=("bot",), isolation=isolation, workdir="/tmp/w", uid=60123, disk_mb=64,
                     endpoint="ipc:///tmp/arena-hub-x/seat1.sock")
    with launch_chain(plan) as (argv, fds):
        assert argv[:argv.index("--")] == [*sandbox.UNSHARE, "--mount", "--pid"]
        order = [argv.index(word) for word in ("unshare", str(sandbox.UID_BOX), str(sandbox.FILTER_EXEC), "setpriv",
                                               "bot")]
        assert order == sorted(order), argv
        box = argv[argv.index(str(sandbox.UID_BOX)) + 1:argv.index(str(sandbox.FILTER_EXEC)) - 4]  # to "--"
        options = [(box[i], box[i + 1]) for i in range(0, len(box), 2)]
        assert {("--work", "/tmp/w"), ("--owner", "60123"), ("--size", str(64 << 20)),
                ("--writable", "/tmp/arena-hub-x/seat1.sock"), ("--keep", str(sandbox.PROJECT_ROOT))} <= set(options)
        masks = dict(value.split(":") for option, value in options if option == "--mask")
        assert {"/proc/keys", "/proc/locks", "/proc/stat"} <= set(masks.values())
        filter_fd = argv[argv.index(str(sandbox.FILTER_EXEC)) + 1]
        assert {int(filter_fd), *(int(fd) for fd in masks)} == set(fds)
    plan = replace(plan, isolation=Isolation(Sandbox.BWRAP, True, "bwrap", syscall_filter=True))
    with launch_chain(plan) as (argv, fds):
        seccomp_fd = argv[argv.index("--seccomp") + 1]
        masks = [argv[i + 1:i + 3] for i, word in enumerate(argv) if word == "--ro-bind-data"]
        assert {int(seccomp_fd), *(int(fd) for fd, _ in masks)} == set(fds)
        assert {"/proc/keys", "/proc/key-users", "/proc/stat", "/proc/loadavg"} <= {dest for _, dest in masks}
        assert argv.index("--seccomp") < argv.index("setpriv", argv.index("--seccomp"))


def test_every_mode_says_in_one_line_when_the_filter_cannot_load(monkeypatch: pytest.MonkeyPatch) -> None:
    if not sandbox.bwrap_works() and os.geteuid() != 0:
        pytest.skip("no mode with a filter here (no bwrap, not root)")
    sandbox.resolve_sandbox.cache_clear()
    sandbox.filter_problem.cache_clear()
    why = seccomp.supported("riscv64")
    monkeypatch.setattr(seccomp, "supported", lambda machine=None: why)
    try:
        isolation = sandbox.resolve_sandbox(Sandbox.AUTO)
        assert not isolation.syscall_filter and "\n" not in isolation.note
        assert isolation.note.endswith(", without a system-call filter (it knows x86_64 and aarch64, not riscv64)"), \
            isolation.note
        plan = ChainPlan(command=("bot",), isolation=isolation, workdir="/tmp/w", uid=60123)
        with launch_chain(plan) as (argv, _):
            assert "--seccomp" not in argv and str(sandbox.FILTER_EXEC) not in argv
    finally:
        sandbox.resolve_sandbox.cache_clear()
        sandbox.filter_problem.cache_clear()
