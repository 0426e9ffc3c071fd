"""The system-call filter of sandboxed bots: a classic BPF program, written here (docs/isolation.md).

Modelled on Docker's default seccomp profile (moby/profiles, seccomp/default.json) for a
container without capabilities, but written as a list of refusals instead of Docker's list
of permissions, with a guard for what the list cannot know: a system call newer than the
last one reviewed here answers ENOSYS (as runc does for calls newer than its profile), so a
kernel upgrade opens nothing. A refused call fails with EPERM and the program goes on; a
lock fails with ENOLCK ("no locks available"), as on a file system without locking.

Loaded by bubblewrap (`--seccomp FD`) in `bwrap` mode and by `filterexec.py` in `uid` mode
(arena.launch.sandbox.sandbox), after the sandbox is built and before the bot's uid is taken, so the
rest of the chain (`setpriv`, `prlimit`) and the bot run under it. Stdlib only, pure functions.
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass
from functools import cache

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6] (little-endian
# on both architectures below, so an argument's low 32 bits come first).
OFFSET_NR = 0
OFFSET_ARCH = 4
OFFSET_ARG0 = 16
OFFSET_ARG1 = 24

# Classic BPF opcodes (linux/filter.h, linux/bpf_common.h).
LD_W_ABS = 0x20  # A = the 32-bit word at offset k of seccomp_data
JEQ_K = 0x15
JGT_K = 0x25
JGE_K = 0x35
JSET_K = 0x45  # jump if A & k
RET_K = 0x06
MAX_INSTRUCTIONS = 4096  # BPF_MAXINSNS

SECCOMP_RET_ALLOW = 0x7FFF0000
SECCOMP_RET_ERRNO = 0x00050000
X32_SYSCALL_BIT = 0x40000000
LAST_REVIEWED = 470  # listns (Linux 6.18): every number above it answers ENOSYS

# CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET, Docker's mask (clone
# takes only the low 32 bits; CLONE_NEWTIME is reachable through unshare and clone3 only).
CLONE_NEW_FLAGS = 0x7E020000
# personality(2) values Docker allows: PER_LINUX, PER_LINUX32, UNAME26 and both, and the query.
PERSONALITIES = (0x0, 0x8, 0x20000, 0x20008, 0xFFFFFFFF)
REFUSED_FAMILIES = {
    38: "AF_ALG: the kernel's crypto API, a large attack surface (Docker refuses it)",
    40: "AF_VSOCK: talks to the hypervisor's host, past the network namespace (Docker refuses it)",
}

# Every refused call (EPERM) and why; the calls an architecture lacks are skipped there.
REFUSED: dict[str, str] = {
    "keyctl": "the kernel keyring is not namespaced: a key outlives its bot and connects bots",
    "add_key": "the kernel keyring (see keyctl)",
    "request_key": "the kernel keyring (see keyctl)",
    "unshare": "new namespaces: a user namespace of its own would give it mounts and more",
    "setns": "joining another namespace",
    "mount": "mounts: a tmpfs in a namespace of its own escapes the disk budget",
    "umount2": "mounts",
    "pivot_root": "mounts",
    "chroot": "mounts (needs CAP_SYS_CHROOT, which no bot has)",
    "fsopen": "the new mount API",
    "fsconfig": "the new mount API",
    "fsmount": "the new mount API",
    "move_mount": "the new mount API",
    "open_tree": "the new mount API",
    "open_tree_attr": "the new mount API",
    "fspick": "the new mount API",
    "mount_setattr": "the new mount API",
    "ptrace": "inspecting other processes (Docker allows it since 4.8; no bot needs it)",
    "process_vm_readv": "reading another process's memory",
    "process_vm_writev": "writing another process's memory",
    "pidfd_getfd": "taking another process's file descriptors",
    "kcmp": "comparing other processes' kernel resources",
    "process_madvise": "advising on another process's memory",
    "migrate_pages": "moving another process's memory",
    "move_pages": "moving another process's memory",
    "bpf": "kernel programs: a large attack surface",
    "perf_event_open": "performance counters: side channels on the other seat, attack surface",
    "userfaultfd": "page faults in user space: a classic exploit helper",
    "io_uring_setup": "io_uring: a large attack surface whose operations no filter sees (Docker refuses it)",
    "io_uring_enter": "io_uring",
    "io_uring_register": "io_uring",
    "fanotify_init": "watching files shared with other bots: a channel between colluding bots",
    "fanotify_mark": "watching files (see fanotify_init)",
    "inotify_init": "watching files shared with other bots (a partner opening one is a signal)",
    "inotify_init1": "watching files (see inotify_init)",
    "inotify_add_watch": "watching files (see inotify_init)",
    "init_module": "kernel modules",
    "finit_module": "kernel modules",
    "delete_module": "kernel modules",
    "kexec_load": "replacing the kernel",
    "kexec_file_load": "replacing the kernel",
    "reboot": "the machine's power",
    "swapon": "the machine's swap",
    "swapoff": "the machine's swap",
    "acct": "process accounting of the machine",
    "quotactl": "disk quotas of the machine",
    "quotactl_fd": "disk quotas of the machine",
    "syslog": "the kernel log",
    "settimeofday": "the machine's clock",
    "clock_settime": "the machine's clock",
    "iopl": "I/O ports",
    "ioperm": "I/O ports",
    "vhangup": "terminals of the machine",
    "open_by_handle_at": "opening files by handle, past every mount (an old container escape)",
    "name_to_handle_at": "file handles (see open_by_handle_at); nothing a bot runs needs them",
    "lsm_get_self_attr": "security-module attributes (Docker: CAP_SYS_ADMIN only)",
    "lsm_set_self_attr": "security-module attributes",
    "lsm_list_modules": "security-module attributes",
    "listns": "listing the machine's namespaces",
    "uselib": "obsolete loader call",
    "_sysctl": "obsolete, replaced by /proc/sys",
    "lookup_dcookie": "obsolete profiling call that names host paths",
    "nfsservctl": "obsolete NFS server call",
}

# Locks on files: every bot sees the same system files (/etc/passwd, the Python it runs), so a
# lock one bot holds on one of them, at an offset of its choosing, is a signal to any other
# bot that tests for it. These fail with ENOLCK, the answer of a file system without locks.
NO_LOCKS: dict[str, str] = {"flock": "whole-file locks (a LOCK_NB probe sees another bot's)"}
# fcntl(2) commands by number (asm-generic/fcntl.h, the same on both architectures) and the errno each gets.
FCNTL_REFUSED: dict[int, tuple[int, str]] = {
    5: (errno.ENOLCK, "F_GETLK: shows another bot's lock, even on a read-only descriptor"),
    6: (errno.ENOLCK, "F_SETLK: a lock another bot can see"),
    7: (errno.ENOLCK, "F_SETLKW: a lock another bot can see, or wait on"),
    36: (errno.ENOLCK, "F_OFD_GETLK (see F_GETLK)"),
    37: (errno.ENOLCK, "F_OFD_SETLK (see F_SETLK); listed in /proc/locks past pid namespaces"),
    38: (errno.ENOLCK, "F_OFD_SETLKW (see F_SETLKW)"),
    1024: (errno.ENOLCK, "F_SETLEASE: a lease another bot's open breaks"),
    1026: (errno.EPERM, "F_NOTIFY: dnotify, a watch on a shared directory (see inotify_init)"),
}

# Numbers shared by every architecture since Linux 5.1 (the unified table).
_UNIFIED = {
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428,
    "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "clone3": 435,
    "pidfd_getfd": 438, "process_madvise": 440, "mount_setattr": 442, "quotactl_fd": 443,
    "lsm_get_self_attr": 459, "lsm_set_self_attr": 460, "lsm_list_modules": 461, "open_tree_attr": 467,
    "listns": 470,
}
_X86_64 = {
    "socket": 41, "clone": 56, "fcntl": 72, "flock": 73, "ptrace": 101, "syslog": 103, "uselib": 134,
    "personality": 135, "vhangup": 153, "pivot_root": 155, "_sysctl": 156, "chroot": 161, "acct": 163,
    "settimeofday": 164, "mount": 165, "umount2": 166, "swapon": 167, "swapoff": 168, "reboot": 169,
    "iopl": 172, "ioperm": 173, "init_module": 175, "delete_module": 176, "quotactl": 179, "nfsservctl": 180,
    "lookup_dcookie": 212, "clock_settime": 227, "kexec_load": 246, "add_key": 248, "request_key": 249,
    "keyctl": 250, "inotify_init": 253, "inotify_add_watch": 254, "migrate_pages": 256, "unshare": 272,
    "move_pages": 279, "inotify_init1": 294, "perf_event_open": 298, "fanotify_init": 300, "fanotify_mark": 301,
    "name_to_handle_at": 303, "open_by_handle_at": 304, "setns": 308, "process_vm_readv": 310,
    "process_vm_writev": 311, "kcmp": 312, "finit_module": 313, "kexec_file_load": 320, "bpf": 321,
    "userfaultfd": 323, **_UNIFIED,
}
_AARCH64 = {  # asm-generic/unistd.h
    "lookup_dcookie": 18, "fcntl": 25, "inotify_init1": 26, "inotify_add_watch": 27, "flock": 32, "umount2": 39,
    "mount": 40, "pivot_root": 41, "nfsservctl": 42, "chroot": 51, "vhangup": 58, "quotactl": 60, "acct": 89,
    "personality": 92, "unshare": 97, "kexec_load": 104, "init_module": 105, "delete_module": 106,
    "clock_settime": 112, "syslog": 116, "ptrace": 117, "reboot": 142, "settimeofday": 170, "socket": 198,
    "add_key": 217, "request_key": 218, "keyctl": 219, "clone": 220, "swapon": 224, "swapoff": 225,
    "migrate_pages": 238, "move_pages": 239, "perf_event_open": 241, "fanotify_init": 262, "fanotify_mark": 263,
    "name_to_handle_at": 264, "open_by_handle_at": 265, "setns": 268, "process_vm_readv": 270,
    "process_vm_writev": 271, "kcmp": 272, "finit_module": 273, "bpf": 280, "userfaultfd": 282,
    "kexec_file_load": 294, **_UNIFIED,
}


@dataclass(frozen=True)
class Arch:
    """An architecture the filter knows: its audit number and its system-call numbers."""

    name: str
    audit: int  # AUDIT_ARCH_* of linux/audit.h
    numbers: dict[str, int]
    x32: bool = False  # x86_64 kernels may also take x32 calls (numbers with X32_SYSCALL_BIT)


ARCHES = {
    "x86_64": Arch("x86_64", 0xC000003E, _X86_64, x32=True),
    "aarch64": Arch("aarch64", 0xC00000B7, _AARCH64),
}
_MACHINE_NAMES = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


@dataclass(frozen=True)
class Instruction:
    """One classic-BPF instruction (struct sock_filter)."""

    code: int
    jt: int = 0  # instructions skipped when the test holds
    jf: int = 0  # instructions skipped when it does not
    k: int = 0

    def pack(self) -> bytes:
        """The 8 bytes the kernel reads (native byte order)."""
        return struct.pack("=HBBI", self.code, self.jt, self.jf, self.k)


def errno_return(code: int) -> Instruction:
    """Fail the call with errno code."""
    return Instruction(RET_K, k=SECCOMP_RET_ERRNO | code)


ALLOW = Instruction(RET_K, k=SECCOMP_RET_ALLOW)
REFUSE = errno_return(errno.EPERM)


def load(offset: int) -> Instruction:
    """A = the 32-bit word at offset of seccomp_data."""
    return Instruction(LD_W_ABS, k=offset)


def _when(code: int, value: int, then: list[Instruction]) -> list[Instruction]:
    """Run `then` (which must end in a return) when the test on A holds, else skip past it."""
    return [Instruction(code, 0, len(then), value), *then]


def _on_arg0(nr: int, body: list[Instruction], offset: int = OFFSET_ARG0) -> list[Instruction]:
    """For system call nr, decide on the low 32 bits of its first argument (or the one at offset) with body."""
    return _when(JEQ_K, nr, [load(offset), *body])


def _fcntl_rule() -> list[Instruction]:
    """fcntl's command (its second argument, an unsigned int): the refused ones get their errno."""
    body = []
    for command, (code, _) in sorted(FCNTL_REFUSED.items()):
        body += _when(JEQ_K, command, [errno_return(code)])
    return [*body, ALLOW]


def machine_arch(machine: str | None = None) -> Arch | None:
    """The filter's architecture for a platform.machine() name, None when it has none."""
    return ARCHES.get(_MACHINE_NAMES.get((machine or platform.machine()).lower(), ""))


def program(arch: Arch) -> list[Instruction]:
    """The filter for arch: refuse what REFUSED, NO_LOCKS and FCNTL_REFUSED list and what is foreign, allow the rest."""
    numbers = arch.numbers
    body = [load(OFFSET_ARCH),
            Instruction(JEQ_K, 1, 0, arch.audit), REFUSE,  # another ABI (i386 by int 0x80): nothing passes
            load(OFFSET_NR)]
    if arch.x32:
        body += _when(JGE_K, X32_SYSCALL_BIT, [REFUSE])
    body += _when(JGT_K, LAST_REVIEWED, [errno_return(errno.ENOSYS)])  # not reviewed: "no such call"
    # clone3's flags are out of the filter's reach: "no such call" makes libc fall back to clone.
    body += _when(JEQ_K, numbers["clone3"], [errno_return(errno.ENOSYS)])
    body += _on_arg0(numbers["clone"], [Instruction(JSET_K, 0, 1, CLONE_NEW_FLAGS), REFUSE, ALLOW])
    allowed = [Instruction(JEQ_K, len(PERSONALITIES) - i, 0, value) for i, value in enumerate(PERSONALITIES)]
    body += _on_arg0(numbers["personality"], [*allowed, REFUSE, ALLOW])
    families = [Instruction(JEQ_K, len(REFUSED_FAMILIES) - i, 0, family) for i, family in enumerate(REFUSED_FAMILIES)]
    body += _on_arg0(numbers["socket"], [*families, ALLOW, REFUSE])
    body += _on_arg0(numbers["fcntl"], _fcntl_rule(), offset=OFFSET_ARG1)
    for nr in sorted(numbers[name] for name in NO_LOCKS if name in numbers):
        body += _when(JEQ_K, nr, [errno_return(errno.ENOLCK)])
    for nr in sorted(numbers[name] for name in REFUSED if name in numbers):
        body += _when(JEQ_K, nr, [REFUSE])
    return [*body, ALLOW]


def encode(instructions: list[Instruction]) -> bytes:
    """The program as the bytes of a struct sock_filter array (what `bwrap --seccomp` reads)."""
    return b"".join(i.pack() for i in instructions)


@cache
def program_bytes(machine: str | None = None) -> bytes:
    """This machine's filter, encoded; ValueError when its architecture has none."""
    arch = machine_arch(machine)
    if arch is None:
        raise ValueError(supported(machine))
    return encode(program(arch))


def supported(machine: str | None = None) -> str:
    """"" when the filter can be built and loaded here, else why not (one line)."""
    name = machine or platform.machine()
    if machine_arch(name) is None:
        return f"it knows {' and '.join(ARCHES)}, not {name}"
    if machine is None and not _kernel_filters():
        return "the kernel has no seccomp (CONFIG_SECCOMP_FILTER)"
    return ""


def _kernel_filters() -> bool:
    """True when this kernel can load seccomp filters (its status shows a Seccomp line)."""
    try:
        with open("/proc/self/status") as status:
            return any(line.startswith("Seccomp:") for line in status)
    except OSError:
        return False
