"""Bot processes: launched with limits in their own session and directory, watched, killed."""

from __future__ import annotations

import errno
import fcntl
import logging
import math
import os
import secrets
import select
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass

from arena.launch.processes.cgroups import BotCgroup, CgroupLimits
from arena.launch.processes.isolation import (
    MARK_VARIABLE,
    become_subreaper,
    process_tree_cpu_ms,
    reap_children,
    run_delay_ms,
    sweep_orphans,
    tree_pids,
)
from arena.launch.processes.launcher import BOT_DIR_PREFIX
from arena.launch.sandbox import folders, uids
from arena.launch.sandbox.folders import NEUTRAL_DIR
from arena.launch.sandbox.sandbox import (
    PROJECT_ROOT,
    ChainPlan,
    Isolation,
    MachineError,
    Sandbox,
    launch_chain,
    resolve_sandbox,
    unreachable,
)
from arena.launch.specs.botspec import BotSpec
from protocol.messages import ENV_ENDPOINT, ENV_TOKEN, MAX_MESSAGE_BYTES

log = logging.getLogger(__name__)

# Variables a bot may see from the organiser's environment; everything else (tokens,
# credentials, cloud keys) stays out.
ENV_ALLOWED = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "VIRTUAL_ENV", "SYSTEMROOT",
               "ARENA_GAMES")  # the games found outside the arena's package (their folders are public)
OUTPUT_LIMIT = 32 * 1024  # bytes of stdout+stderr kept per bot (the tail)
LAST_LINE_CHARS = 1000  # of a bot's last line of output, quoted in one-line failure reports
_READ_CHUNK = 65536


LAUNCH_RETRIES = 5  # tries when the machine refuses a process (EAGAIN, ENOMEM), with back-off
_MACHINE_ERRNOS = (errno.EAGAIN, errno.ENOMEM)
FOLDER_FIX = "give the bot a folder of its own that holds only its files (`dir` in a tournament's bot entry)"


class LaunchError(RuntimeError):
    """A bot process could not be started at all."""


@dataclass(frozen=True)
class Limits:
    """Resource limits applied before the bot's program runs (None = not limited)."""

    address_space_mb: int | None = 4096
    cpu_seconds: int | None = None
    file_size_mb: int | None = 64
    open_files: int | None = 256
    processes: int | None = 64  # the bot's cgroup pids.max (and RLIMIT_NPROC of its own uid)
    memory_mb: int | None = 2048  # the bot's cgroup memory limit (its tmpfs files count too)
    disk_mb: int | None = 256  # everything it may write in bwrap together (work directory, /tmp, /dev/shm)

    def cgroup(self, cpus: tuple[int, ...] | None = None) -> CgroupLimits:
        """The part of these limits that the bot's cgroup enforces (on these cores, if given)."""
        return CgroupLimits(processes=self.processes, memory_mb=self.memory_mb, cpus=cpus)

    def prlimit_args(self, own_uid: bool = False) -> list[str]:
        """The arguments of util-linux `prlimit` that apply these limits.

        RLIMIT_NPROC counts every process of a uid: applied only to a bot's own uid, never
        to the organiser's (where the cgroup's pids.max does the job).
        """
        args = []
        if self.address_space_mb is not None:
            args.append(f"--as={self.address_space_mb * 2**20}")
        if self.cpu_seconds is not None:
            args.append(f"--cpu={self.cpu_seconds}")
        if self.file_size_mb is not None:
            args.append(f"--fsize={self.file_size_mb * 2**20}")
        if self.open_files is not None:
            args.append(f"--nofile={self.open_files}")
        if self.processes is not None and own_uid:
            args.append(f"--nproc={self.processes}")
        return args


class OutputTail:
    """The last `limit` bytes a process wrote, and how many bytes were dropped before them."""

    def __init__(self, limit: int = OUTPUT_LIMIT) -> None:
        self.limit = limit
        self.data = bytearray()
        self.dropped = 0

    def add(self, chunk: bytes) -> None:
        """Append a chunk, keeping only the tail."""
        self.data += chunk
        excess = len(self.data) - self.limit
        if excess > 0:
            del self.data[:excess]
            self.dropped += excess

    def last_line(self) -> str:
        """The last non-empty line written (shortened), for one-line failure reports."""
        lines = [text for text in self.data.decode("utf-8", errors="replace").splitlines() if text.strip()]
        if not lines:
            return ""
        line = lines[-1].strip()
        # Long paths make long lines, and the end often says what to do: keep both ends.
        if len(line) <= LAST_LINE_CHARS:
            return line
        return f"{line[:LAST_LINE_CHARS // 2]} … {line[-LAST_LINE_CHARS // 2:]}"

    def text(self) -> str:
        """The kept output as text, prefixed by a note when bytes were dropped."""
        body = self.data.decode("utf-8", errors="replace")
        return f"[{self.dropped} earlier bytes dropped]\n{body}" if self.dropped else body

    def size(self) -> int:
        """Every byte written so far, kept or dropped."""
        return len(self.data) + self.dropped

    def since(self, mark: int) -> str:
        """What was written after the first mark bytes (only the kept tail of it)."""
        new = self.size() - mark
        return bytes(self.data[-new:]).decode("utf-8", errors="replace") if new > 0 else ""


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def bot_environment(workdir: str, endpoint: str, token: str) -> dict[str, str]:
    """The minimal environment of a bot process."""
    env = {key: os.environ[key] for key in ENV_ALLOWED if key in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    # Python bots import `protocol` (and may import `arena.games`) even from a source tree.
    paths = [str(PROJECT_ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
    env["PYTHONPATH"] = os.pathsep.join(paths)
    env["HOME"] = env["TMPDIR"] = workdir
    env["PYTHONUNBUFFERED"] = "1"
    if endpoint:  # stdio bots talk through their pipes and get neither
        env[ENV_ENDPOINT] = endpoint
        env[ENV_TOKEN] = token
    return env


def preflight(spec: BotSpec, sandbox: Sandbox) -> None:
    """LaunchError when a bot cannot start at all: missing or non-executable program, closed files.

    Checked before the first move, so that a bad spec is a usage error and not a played match.
    """
    problem = program_problem(spec)
    if problem:
        raise LaunchError(f"{spec.text}: {problem}")
    isolation = resolve_sandbox(sandbox)
    if isolation.own_uid and spec.argv:
        check_reachable(spec, isolation)
    check_folder(spec, sandbox)


def program_problem(spec: BotSpec) -> str:
    """Why a bot's program cannot run, with the fix in the words of its spec ("" when it can)."""
    if not spec.argv or shutil.which(spec.argv[0]) is not None:
        return ""
    prefix, _, command = spec.text.partition(":")
    given = shlex.split(command)[0]  # the program as written (argv[0] is made absolute where it exists)
    if "/" not in given and os.path.isfile(given):  # a bare name is looked for on PATH, as a shell does
        mode = "" if os.access(given, os.X_OK) else f"chmod +x {given}, then "
        return (f"no program {given} on PATH (a bare name is looked up there); "
                f"for the file {given} here: {mode}{prefix}:./{given}")
    if os.path.isdir(spec.argv[0]):
        return f"{given} is a folder, not a program"
    if os.path.exists(spec.argv[0]):
        return (f"not executable: {given} (chmod +x {given}, "
                f"or name its interpreter, e.g. {prefix}:python3 {given})")
    return f"no such program: {given}"


def check_reachable(spec: BotSpec, isolation: Isolation) -> None:
    """LaunchError unless the bot's own uid can read its program and folder.

    The folder is shown as a copy in a place open to the bot, so only its own modes count,
    never those of the folders above it; a program outside it must be reachable where it is.
    """
    own = spec.files
    program = shutil.which(spec.argv[0]) if spec.argv else None
    checks: list[tuple[str, str]] = []  # (path, the one that stops it)
    if own:
        info = os.stat(own)
        checks.append((own, own if (info.st_mode & 0o005) != 0o005 else ""))
    if program and own and _within(os.path.realpath(program), own):
        checks.append((program, program if not os.stat(program).st_mode & 0o004 else ""))
    elif program:
        if isolation.mode == Sandbox.UID:  # no sandbox: every folder above must let it pass
            checks.append((program, unreachable(program)))
        else:  # bwrap shows the system and the arena's Python under parents of its own
            checks.append((program, program if not os.stat(program).st_mode & 0o004 else ""))
    if isolation.mode == Sandbox.UID and spec.kind.greets:  # the SDK is imported where it lies
        package = str(PROJECT_ROOT / "protocol")
        checks.append((package, unreachable(package)))
    for path, blocked in checks:
        if blocked:
            raise LaunchError(f"{spec.text}: {path} is closed to the bot's own uid at {blocked} "
                              f"(sandbox {isolation.mode}: chmod o+rX it, or use --sandbox none for trusted bots)")


def check_folder(spec: BotSpec, sandbox: Sandbox) -> None:
    """LaunchError when the bot's own folder cannot be shown to it (too large, unreadable)."""
    isolation = resolve_sandbox(sandbox)
    if spec.files and isolation.mode != Sandbox.NONE:
        try:
            folders.scan(spec.files, others=isolation.own_uid)
        except folders.FolderError as exc:
            raise LaunchError(f"{spec.text}: {exc}: {FOLDER_FIX}") from None


def _lease_uid() -> uids.UidLease:
    """A uid of the pool, waiting with back-off while all are in use (other workers free theirs)."""
    for attempt in range(LAUNCH_RETRIES):
        try:
            return uids.acquire()
        except uids.UidPoolError as exc:
            if attempt == LAUNCH_RETRIES - 1:
                raise MachineError(str(exc)) from None
            time.sleep(0.05 * 2**attempt)
    raise AssertionError("unreachable")


class BotProcess:
    """One running bot program; its death is visible at once through a pidfd."""

    def __init__(
        self,
        spec: BotSpec,
        endpoint: str,
        token: str,
        limits: Limits | None = None,
        stdio: bool = False,
        sandbox: Sandbox = Sandbox.NONE,
        supervisor: tuple[str, ...] = (),
        cpus: tuple[int, ...] | None = None,
    ) -> None:
        self.spec = spec
        self.sandbox = sandbox
        self.supervisor = supervisor  # runs as the arena's user, outside any sandbox
        self.cpus = cpus  # the cores the bot is confined to (its cgroup's cpuset), if any
        self.cgroup: BotCgroup | None = None
        self.lease: uids.UidLease | None = None
        self.limit_note = ""  # which cgroup limit stopped the bot, kept after the cgroup is gone
        self._refusals = (0, 0)  # fork_refusals(), kept after the cgroup is gone
        self._above_seen = 0  # refusals from above already answered for (machine_refusals)
        self._ran: bool | None = None  # whether the bot ever ran in its cgroups, kept after they are gone
        self.mark = secrets.token_hex(8)
        self.stdio = stdio  # protocol on stdin/stdout (JSON lines); output captures stderr only
        self.stdin_fd = -1
        self.stdout_fd = -1
        self.endpoint = endpoint
        self.token = token
        self.limits = limits or Limits()
        self.output = OutputTail()
        self.proc: subprocess.Popen[bytes] | None = None
        self.pidfd = -1
        self.output_fd = -1
        self.workdir = ""
        self.view = ""  # the staged view of the bot's own folder
        self.command: tuple[str, ...] = ()  # the command as the bot sees it (its folder's paths where it is shown)
        self.exit_status: int | None = None

    @property
    def uid(self) -> int | None:
        """The bot's own uid, when it has one."""
        return self.lease.uid if self.lease is not None else None

    def _prepare(self) -> ChainPlan:
        """Lease a uid, hand it the work directory and socket, create the cgroups."""
        isolation = resolve_sandbox(self.sandbox)
        self.workdir = tempfile.mkdtemp(prefix=BOT_DIR_PREFIX)
        become_subreaper()
        if isolation.own_uid:
            self.lease = _lease_uid()
            os.chown(self.workdir, self.lease.uid, self.lease.uid)
            if self.endpoint.startswith("ipc://"):
                socket_path = self.endpoint[len("ipc://"):]
                os.chown(socket_path, self.lease.uid, self.lease.uid)
                os.chmod(socket_path, 0o600)
        if isolation.own_uid:
            check_reachable(self.spec, isolation)
        command = tuple(self.spec.argv)
        if self.spec.files and isolation.mode != Sandbox.NONE:
            self._stage(isolation)
            shown = NEUTRAL_DIR if isolation.mode == Sandbox.BWRAP else self.view
            command = folders.rewrite(command, self.spec.files, shown)
        self.command = command
        self.cgroup = BotCgroup.create(self.limits.cgroup(self.cpus))
        limit_args = self.limits.prlimit_args(own_uid=self.lease is not None) if shutil.which("prlimit") else []
        return ChainPlan(
            command=command, isolation=isolation, workdir=self.workdir, endpoint=self.endpoint,
            own_folder=self.view if isolation.mode == Sandbox.BWRAP else "", uid=self.uid,
            limit_args=tuple(limit_args), disk_mb=self.limits.disk_mb,
            procs_files=tuple(self.cgroup.procs_files()) if self.cgroup is not None else (),
            supervisor=self.supervisor,
        )

    def _stage(self, isolation: Isolation) -> None:
        """A view of the bot's own folder for this process (docs/isolation.md: a copy, never the host folder)."""
        try:
            self.view = folders.stage(self.spec.files, others=isolation.own_uid,
                                      group=self.uid if isolation.mode == Sandbox.UID else None)
        except folders.FolderError as exc:
            if exc.machine:
                raise MachineError(f"{self.spec.text}: {exc}") from None
            raise LaunchError(f"{self.spec.text}: {exc}: {FOLDER_FIX}") from None

    def _popen(self, argv: list[str], env: dict[str, str], pass_fds: tuple[int, ...]) -> subprocess.Popen[bytes]:
        """Popen, retried with back-off while the machine refuses (EAGAIN, ENOMEM)."""
        for attempt in range(LAUNCH_RETRIES):
            try:
                return subprocess.Popen(
                    argv,
                    stdin=subprocess.PIPE if self.stdio else subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE if self.stdio else subprocess.STDOUT,
                    cwd=self.workdir,
                    env=env,
                    start_new_session=True,
                    close_fds=True,
                    pass_fds=pass_fds,
                )
            except OSError as exc:
                if exc.errno not in _MACHINE_ERRNOS:
                    raise LaunchError(f"cannot start {self.spec.text}: {exc}") from None
                if attempt == LAUNCH_RETRIES - 1:
                    raise MachineError(f"the machine refused a process for {self.spec.text}: "
                                       f"{exc.strerror} after {LAUNCH_RETRIES} tries") from None
                time.sleep(0.05 * 2**attempt)
        raise AssertionError("unreachable")

    def start(self) -> None:
        """Launch the program in its own session, directory, cgroups, uid and sandbox."""
        try:
            plan = self._prepare()
            env = bot_environment(self.workdir, self.endpoint, self.token)
            env[MARK_VARIABLE] = self.mark
            with launch_chain(plan) as (argv, fds):
                self.proc = self._popen(argv, env, fds)
        except BaseException:
            self._release()
            raise
        proc = self.proc
        if self.stdio and proc.stdin is not None and proc.stdout is not None and proc.stderr is not None:
            self.stdin_fd, self.stdout_fd = proc.stdin.fileno(), proc.stdout.fileno()
            self.output_fd = proc.stderr.fileno()
            os.set_blocking(self.stdin_fd, False)
            os.set_blocking(self.stdout_fd, False)
            try:  # room for a whole message in the pipe, so a send never has to wait
                fcntl.fcntl(self.stdin_fd, fcntl.F_SETPIPE_SZ, MAX_MESSAGE_BYTES)
            except OSError:
                log.debug("cannot enlarge the stdin pipe of %s", self.spec.text)
        elif proc.stdout is not None:
            self.output_fd = proc.stdout.fileno()
        os.set_blocking(self.output_fd, False)
        self.pidfd = os.pidfd_open(proc.pid)

    def _release(self) -> None:
        """Give back what _prepare took: cgroups, uid, work directory."""
        if self.cgroup is not None:
            self.limit_note = self.cgroup.limit_hit()
            self._refusals = self.cgroup.fork_refusals()
            self._ran = self.cgroup.ever_ran()
            self.cgroup.remove()
            self.cgroup = None
        if self.lease is not None:
            self.lease.release()
            self.lease = None
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)
            self.workdir = ""
        if self.view:
            folders.release(self.view)
            self.view = ""

    @property
    def pid(self) -> int:
        """The process id (0 before start)."""
        return self.proc.pid if self.proc else 0

    def output_size(self) -> int:
        """Bytes of output the process has written so far (drained ones)."""
        return self.output.size()

    def output_since(self, mark: int) -> str:
        """The output written after mark bytes (bounded by the kept tail)."""
        return self.output.since(mark)

    def output_text(self) -> str:
        """All kept output, with a note when earlier bytes were dropped ("" when there is none)."""
        return self.output.text() if self.output.data else ""

    def drain_output(self) -> bool:
        """Read whatever output is available; False once the pipe is closed."""
        if self.output_fd < 0:
            return False
        while True:
            try:
                chunk = os.read(self.output_fd, _READ_CHUNK)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not chunk:
                return False
            self.output.add(chunk)

    def poll(self) -> int | None:
        """The exit status once the process has ended (negative: killed by that signal)."""
        if self.exit_status is None and self.proc is not None:
            self.exit_status = self.proc.poll()
        return self.exit_status

    @property
    def alive(self) -> bool:
        """True while the process runs."""
        return self.proc is not None and self.poll() is None

    def describe_exit(self) -> str:
        """A short description of how the process ended, with its last line of output."""
        status = self.poll()
        if status is None:
            how = "still running"
        elif status < 0:
            try:
                how = f"killed by {signal.Signals(-status).name}"
            except ValueError:
                how = f"killed by signal {-status}"
        else:
            how = f"exited with status {status}"
        limit = self.cgroup.limit_hit() if self.cgroup is not None else self.limit_note
        if limit:
            how += f", after {limit}"
        last = self.output.last_line()
        return f"{how} ({last})" if last else how

    @property
    def freezable(self) -> bool:
        """True when the bot can be frozen whole (a cgroup freezer holds it)."""
        return self.cgroup is not None and self.cgroup.freezable

    def freeze(self) -> None:
        """Stop every process of the bot (no CPU for it) until thaw(); nothing where it cannot be frozen."""
        if self.cgroup is not None:
            self.cgroup.freeze()

    def thaw(self) -> None:
        """Let a frozen bot run again."""
        if self.cgroup is not None:
            self.cgroup.thaw()

    def fork_refusals(self) -> tuple[int, int]:
        """Forks of the bot refused so far: (by its own process limit, by a limit above it)."""
        return self.cgroup.fork_refusals() if self.cgroup is not None else self._refusals

    def never_ran(self) -> bool:
        """True when the launch chain failed before the bot's program ran: its cgroups never held a process.

        Only the chain's own steps come before the join (a fork the machine refused, say): such
        a failure is never the bot's. False where there are no cgroups to tell.
        """
        if self.cgroup is not None:
            return self.proc is not None and self.poll() is not None and not self.cgroup.ever_ran()
        return self._ran is False

    def machine_refusals(self) -> int:
        """Forks of the bot refused by a limit above its own since the last call: the machine's doing."""
        _, above = self.fork_refusals()
        new, self._above_seen = above - self._above_seen, above
        return max(0, new)

    def cpu_ms(self) -> float:
        """CPU time used so far by the bot's whole process tree, in milliseconds."""
        if self.cgroup is not None:
            return self.cgroup.cpu_ms()
        return process_tree_cpu_ms(self.pid) if self.pid else 0.0

    def run_delay_ms(self) -> float:
        """How long the bot's processes have waited for a CPU they were ready to use (a busy machine's time)."""
        if not self.pid:
            return 0.0
        return run_delay_ms(self.cgroup.pids() if self.cgroup is not None else tree_pids(self.pid))

    def kill(self) -> None:
        """Kill the bot and every descendant (setsid ones too), reap, release fds and directory."""
        if self.proc is not None:
            members = self.cgroup.pids() if self.cgroup is not None else set()
            if self.cgroup is not None:
                self.cgroup.kill()
            if self.exit_status is None:  # once reaped, the pid (and group id) may be reused
                try:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover - SIGKILL cannot be ignored
                log.error("bot %s (pid %d) survived SIGKILL", self.spec.text, self.proc.pid)
            self.poll()
            reap_children(members - {self.proc.pid})
            sweep_orphans(self.mark, exclude=self.proc.pid)
        self.close()

    def wait_exit(self, timeout: float) -> bool:
        """Wait up to timeout seconds for the process to exit by itself, reading its output meanwhile."""
        if self.proc is None:
            return True
        deadline = time.monotonic() + timeout
        poller = select.poll()
        if self.pidfd >= 0:  # readable once the process has ended
            poller.register(self.pidfd, select.POLLIN)
        output = self.output_fd
        if output >= 0:  # a full pipe would stop a bot that writes on its way out
            poller.register(output, select.POLLIN)
        while self.poll() is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return False
            if self.pidfd < 0:  # released already: nothing to wake us, look again shortly
                time.sleep(min(0.005, remaining))
                continue
            ready = poller.poll(math.ceil(remaining * 1000))
            if output >= 0 and any(fd == output for fd, _ in ready) and not self.drain_output():
                poller.unregister(output)  # closed: only the pidfd is left to wait on
                output = -1
        return True

    def close(self) -> None:
        """Release the pidfd, the output pipe and the working directory."""
        self.drain_output()
        if self.pidfd >= 0:
            os.close(self.pidfd)
            self.pidfd = -1
        if self.proc is not None:
            for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
                if pipe is not None:
                    try:
                        pipe.close()
                    except OSError:  # a stdin pipe with unsent bytes to a dead bot
                        pass
        self.output_fd = self.stdin_fd = self.stdout_fd = -1
        if self.proc is None or self.poll() is not None:  # a live bot keeps its uid and cgroups
            self._release()
