"""Run submissions apart: one child process per submission, forked from a fork server.

The fork server (``multiprocessing``'s ``forkserver`` start method) imports
TensorFlow once and never runs an op, so each child starts with TensorFlow
imported for free and can safely run ``tf.function``. The trusted parent never
imports TensorFlow: it only reads plain data from the children, watches their
time and memory, and restarts a child after a crash or a timeout so that one
bad case costs only that case.
"""
from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import multiprocessing.forkserver
import os
import shutil
import signal
import tempfile
import time
from dataclasses import dataclass, field, replace
from typing import Iterable, Iterator

from autograder import wire
from autograder.container import describe_limit, memory_limit, oom_kills
from autograder.jobs import STUDENT, ChildJob, enter_child
from autograder.quiet import quiet_tensorflow

MAX_MESSAGE_BYTES = 64 * 2**20
TICK_SECONDS = 0.05
MAX_LOAD_RESTARTS = 5
GiB = 2**30
SANDBOX_UID_BASE = 200_000  # far above the machine's own users
MEMORY_ERRORS = {"MemoryError", "ResourceExhaustedError"}


@dataclass(frozen=True)
class Limits:
    """Per-child limits; every value has a message the student can read."""

    load_seconds: float = 60.0  # running the notebook's cells (per cell that hangs)
    submission_seconds: float = 300.0  # everything for one submission
    memory_bytes: int = 2 * GiB  # resident memory of the child
    case_seconds: float | None = None  # caps every case's own time limit (None: the exercise's limits)


@dataclass(frozen=True)
class ErrorInfo:
    type: str
    message: str
    module: str = ""
    contract: bool = False  # raised by the grader's probe: the return value broke the contract
    frames: tuple[tuple[str, int, str, str], ...] = ()  # (file, line, function, code)

    @property
    def where(self) -> str:
        """'cell 7, line 4' of the deepest student frame, or ''."""
        if not self.frames:
            return ""
        file, line, _, _ = self.frames[-1]
        label = file.strip("<>")
        return f"{label}, line {line}" if label.startswith("cell") else f"line {line}"


@dataclass(frozen=True)
class TaskOutcome:
    """What happened to one task: outputs, or an error, or why it did not finish."""

    status: str  # "ok" | "error" | "timeout" | "crashed" | "memory" | "not-run"
    outputs: dict[str, wire.Value] | None = None
    error: ErrorInfo | None = None
    message: str = ""  # for timeout / crashed / memory / not-run
    seconds: float = 0.0


@dataclass
class RunRecord:
    """Everything the child reported about one submission, as plain data."""

    load_errors: list[tuple[int, ErrorInfo]] = field(default_factory=list)
    defined: dict[str, list[str] | str] = field(default_factory=dict)
    outcomes: dict[int, TaskOutcome] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # what went wrong outside a task
    loaded: bool = False
    seconds: float = 0.0


def _context():
    quiet_tensorflow()
    context = multiprocessing.get_context("forkserver")
    # autograder.child imports TensorFlow; autograder.cli pulls in nbformat and rich (a second more), which
    # every child would otherwise import again with the main module that multiprocessing re-imports.
    context.set_forkserver_preload(["autograder.child", "autograder.cli"])
    return context


def start_fork_server() -> None:
    """Start the fork server now, without waiting for it: its `import tensorflow` (2-3 s on one core) then
    overlaps with the parent's own work (reading submissions, static checks) instead of preceding it.
    The first child waits for the import as before; nothing else changes."""
    _context()
    try:
        multiprocessing.forkserver.ensure_running()
    except OSError:
        pass  # the first child's start tries again, and reports the error there


def signal_name(code: int) -> str:
    try:
        return signal.Signals(code).name
    except ValueError:
        return f"signal {code}"


def resident_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


_scan: tuple[float, dict[int, int]] = (-1.0, {})  # (when, pid -> uid) of the last look at /proc


def process_uids(max_age: float = 0.0) -> dict[int, int]:
    """pid -> real uid of every process on the machine; a look younger than ``max_age`` seconds is reused,
    so the children running at once share one look instead of each taking its own."""
    global _scan
    now = time.monotonic()
    if now - _scan[0] <= max_age:
        return _scan[1]
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            handle = os.open(f"/proc/{entry}/status", os.O_RDONLY)
            try:
                head = os.read(handle, 2048)
            finally:
                os.close(handle)
            start = head.index(b"\nUid:") + 5
            found[int(entry)] = int(head[start:head.index(b"\n", start)].split()[0])
        except (OSError, ValueError, IndexError):
            continue
    _scan = (now, found)
    return found


def processes_of(uid: int, max_age: float = 0.0) -> list[int]:
    """Every process that runs as ``uid``: a child's own, and any it started, even in a new session."""
    return [pid for pid, owner in process_uids(max_age).items() if owner == uid]


class SubmissionRun:
    """The parent's view of one submission being graded, across child restarts."""

    def __init__(self, key, job: ChildJob, limits: Limits, time_limits: list[float]):
        self.key = key
        self.job = job
        self.limits = limits
        self.time_limits = time_limits  # per task
        self.record = RunRecord()
        self.started: float | None = None  # when its first child started: waiting in the queue is not its time
        self.process = None
        self.connection = None
        self.current_task: int | None = None
        self.current_cell: int | None = None
        self.deadline = 0.0
        self.next_start = 0
        self.skip_cells: set[int] = set()
        self.load_restarts = 0
        self.finished = False
        self.slot = 0
        self.oom_kills_before: tuple[int, ...] | None = None  # the memory controller's OOM kills at the start
        self.uid: int | None = None  # the child's own uid, when the grader is root
        self.workdir = ""
        self._family_checked = 0.0
        self._family_bytes = 0
        self.measures: list[str] = []  # the containment the child reported
        self._done_seen = False
        self._closed = False  # the child closed its end of the connection

    # ---------------------------------------------------------------- lifecycle
    def start(self, context, slot: int = 0) -> None:
        self.slot = slot
        receiver, sender = context.Pipe(duplex=False)
        self.uid = sandbox_uid(slot) if os.geteuid() == 0 else None
        containment = replace(self.job.containment, uid=self.uid)
        self.workdir = tempfile.mkdtemp(prefix="autograder-")
        job = replace(self.job, start=self.next_start, skip_cells=frozenset(self.skip_cells), containment=containment,
                      workdir=self.workdir)
        self.process = context.Process(target=enter_child, args=(sender, job), daemon=True)
        self.oom_kills_before = oom_kills()
        self.process.start()  # the first one waits for the fork server's import: not the submission's time
        if self.started is None:
            self.started = time.monotonic()
        sender.close()
        self.connection = receiver
        self.current_task = None
        self.current_cell = None
        self._done_seen = False
        self._closed = False
        self.deadline = time.monotonic() + self.limits.load_seconds

    def waitables(self) -> list:
        if not self.process:
            return []
        # A connection the child has closed stays readable (at EOF) until the child is gone: waiting on it
        # would spin. From then on only the process's exit is awaited.
        return [self.process.sentinel] if self._closed else [self.connection, self.process.sentinel]

    def submission_deadline(self) -> float:
        return self.started + self.limits.submission_seconds

    # ---------------------------------------------------------------- events
    def pump(self) -> None:
        """Read every message that is ready; stop the child on a protocol violation."""
        try:
            while self.connection.poll():
                data = self.connection.recv_bytes(MAX_MESSAGE_BYTES)
                self._handle(wire.loads(data))
        except (EOFError, ConnectionError):
            self._closed = True
        except (OSError, wire.WireError) as error:
            self._stop_child(f"the submission's process broke the grader's protocol ({error})", "crashed")

    def _handle(self, message: dict) -> None:
        event = message["event"]
        now = time.monotonic()
        if event == "contained":
            self.measures = [wire.text(m, "measure") for m in _list(message.get("measures"))]
        elif event == "cell-start":
            self.current_cell = _int(message.get("cell"))
            self.deadline = now + self.limits.load_seconds
        elif event == "loaded":
            self.record.loaded = True
            self.current_cell = None
            self.record.load_errors = [(_int(e.get("cell")), _error(e)) for e in _list(message.get("errors"))]
            defined = message.get("defined")
            if type(defined) is dict:
                self.record.defined = {
                    wire.text(name, "name"): (value if type(value) is str else [wire.text(v, "param") for v in _list(value)])
                    for name, value in defined.items()
                }
        elif event == "task-start":
            task = _int(message.get("task"))
            if task < 0 or task >= len(self.job.tasks):
                raise wire.WireError("unknown task")
            self.current_task = task
            self.deadline = now + self.time_limits[task]
        elif event == "task-result":
            task = _int(message.get("task"))
            if task != self.current_task or task in self.record.outcomes:
                raise wire.WireError("a result for a task that was not running")
            seconds = wire.number(message.get("seconds", 0.0), "seconds")
            if "error" in message:
                error = _error(message["error"])
                if error.type in MEMORY_ERRORS:  # the address-space limit made an allocation fail
                    self.record.outcomes[task] = TaskOutcome(
                        "memory", error=error, seconds=seconds,
                        message=f"memory limit of {self.limits.memory_bytes / GiB:g} GiB exceeded ({error.type})")
                else:
                    self.record.outcomes[task] = TaskOutcome("error", error=error, seconds=seconds)
            else:
                outputs = message.get("outputs")
                if type(outputs) is not dict:
                    raise wire.WireError("outputs must be an object")
                decoded = {wire.text(name, "output"): wire.decode_value(value) for name, value in outputs.items()}
                self.record.outcomes[task] = TaskOutcome("ok", outputs=decoded, seconds=seconds)
            self.current_task = None
        elif event == "done":
            self._done_seen = True
        else:
            raise wire.WireError(f"unknown event {event!r}")

    def check_limits(self, now: float) -> None:
        if self.process is None or not self.process.is_alive():
            return
        if now > self.submission_deadline():
            self._stop_child(f"the submission's time limit of {self.limits.submission_seconds:g} s was reached",
                             "timeout", whole_submission=True)
        elif now > self.deadline:
            if self.current_task is not None:
                exercise = self.job.tasks[self.current_task].exercise
                limit = self.time_limits[self.current_task]
                self._stop_child(f"timeout after {limit:g} s in {exercise}", "timeout")
            else:
                self._stop_child(None, "timeout")
        elif self._resident() > self.limits.memory_bytes:
            self._stop_child(f"memory limit of {self.limits.memory_bytes / GiB:g} GiB exceeded", "memory")

    def _resident(self) -> int:
        """The child's resident memory, plus every process it started (scanned at most 4 times a second)."""
        own = resident_bytes(self.process.pid)
        if self.uid is None:
            return own
        now = time.monotonic()
        if now - self._family_checked > 0.25:
            self._family_checked = now
            self._family_bytes = sum(resident_bytes(pid) for pid in processes_of(self.uid, max_age=0.2)
                                     if pid != self.process.pid)
        return own + self._family_bytes

    def on_exit(self) -> None:
        """The child ended: account for it, and decide whether to restart."""
        self.pump()
        code = self.process.exitcode
        self.process.join()
        self.kill_leftovers()
        self._close()
        if self._done_seen:
            self._finish()
            return
        status = "crashed"
        if code == -signal.SIGXCPU:
            reason = f"CPU time limit of {self.job.containment.cpu_seconds} s exceeded"
        elif code == -signal.SIGKILL and self.oom_kills_before is not None and oom_kills() != self.oom_kills_before:
            # The kernel's, not ours: the machine's or container's memory ran out before our own limit.
            reason = "out of memory: the system's out-of-memory killer stopped it" + describe_limit(memory_limit())
            status = "memory"
        elif code is not None and code < 0:
            reason = f"the process was killed by {signal_name(-code)}"
        else:
            reason = f"the process exited with code {code} before grading finished"
        self._account_failure(reason, status)

    # ---------------------------------------------------------------- failures
    def _stop_child(self, reason: str | None, status: str, whole_submission: bool = False) -> None:
        self._kill()
        self.pump()
        self._close()
        if whole_submission:
            for number in range(len(self.job.tasks)):
                self.record.outcomes.setdefault(number, TaskOutcome("timeout", message=reason))
            self.record.problems.append(reason)
            self._finish()
            return
        if reason is None:  # a cell of the notebook hung while loading
            reason = f"cell {self.current_cell} did not finish within {self.limits.load_seconds:g} s"
        self._account_failure(reason, status)

    def _account_failure(self, reason: str, status: str) -> None:
        if self.current_task is not None:
            failed = self.current_task
            self.record.outcomes[failed] = TaskOutcome(status, message=reason)
            # The other cases of the same implementation and exercise would most likely fail the same way.
            group = (self.job.tasks[failed].implementation, self.job.tasks[failed].exercise)
            later = failed + 1
            while later < len(self.job.tasks) and (self.job.tasks[later].implementation,
                                                    self.job.tasks[later].exercise) == group:
                self.record.outcomes.setdefault(
                    later, TaskOutcome("not-run", message=f"not run: an earlier case stopped ({reason})"))
                later += 1
            self.next_start = later
        elif not self.record.loaded and self.current_cell is not None:
            self.record.problems.append(f"cell {self.current_cell} was skipped: {reason}")
            self.skip_cells.add(self.current_cell)
            self.load_restarts += 1
            if self.load_restarts > MAX_LOAD_RESTARTS:
                self._give_up(f"the notebook could not be loaded ({reason})")
                return
        else:
            self._give_up(reason)
            return
        self._next_or_finish()

    def _give_up(self, reason: str) -> None:
        self.record.problems.append(reason)
        for number in range(len(self.job.tasks)):
            self.record.outcomes.setdefault(number, TaskOutcome("crashed", message=reason))
        self._finish()

    def _next_or_finish(self) -> None:
        while self.next_start < len(self.job.tasks) and self.next_start in self.record.outcomes:
            self.next_start += 1
        if self.next_start >= len(self.job.tasks):
            self._finish()
        else:
            self.process = None  # the scheduler starts a new child

    def _kill(self) -> None:
        if self.process is None or self.process.pid is None:
            return
        for kill in (lambda: os.killpg(self.process.pid, signal.SIGKILL), self.process.kill):
            try:
                kill()
            except (ProcessLookupError, PermissionError, OSError):
                pass
        self.process.join(5)
        self.kill_leftovers()

    def kill_leftovers(self) -> None:
        """Processes the student started that escaped the child's session: none may outlive it."""
        if self.uid is None:
            return
        for _ in range(3):  # a fork bomb may fork while it is being killed
            pids = processes_of(self.uid)
            if not pids:
                return
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            time.sleep(0.05)

    def _close(self) -> None:
        if self.connection is not None:
            self.connection.close()
            self.connection = None
        if self.workdir:
            shutil.rmtree(self.workdir, ignore_errors=True)  # the captured output and whatever the child left
            self.workdir = ""

    def _finish(self) -> None:
        for number in range(len(self.job.tasks)):
            self.record.outcomes.setdefault(number, TaskOutcome("not-run", message="not run"))
        self.record.seconds = time.monotonic() - self.started
        self.finished = True
        self.process = None


def sandbox_uid(slot: int) -> int:
    """An unprivileged uid of its own for each child running at once, and for each grader on the machine.

    Children of one uid could signal each other; with a uid each, a child can reach no other process.
    """
    return SANDBOX_UID_BASE + (os.getpid() % 10_000) * 256 + slot


def run_all(runs: Iterable[SubmissionRun], jobs: int = 1) -> Iterator[SubmissionRun]:
    """Run submissions with at most ``jobs`` children at once; yield each as it finishes."""
    context = _context()
    pending = list(runs)
    active: list[SubmissionRun] = []
    free_slots = list(range(max(1, jobs)))
    while pending or active:
        while pending and free_slots:
            run = pending.pop(0)
            run.start(context, free_slots.pop(0))
            active.append(run)
        ready = multiprocessing.connection.wait([w for run in active for w in run.waitables()], TICK_SECONDS)
        now = time.monotonic()
        for run in list(active):
            if run.connection in ready:
                run.pump()
            if run.process is not None and run.process.sentinel in ready:
                run.on_exit()
            elif run.process is not None:
                run.check_limits(now)
            if run.finished:
                active.remove(run)
                free_slots.append(run.slot)
                yield run
            elif run.process is None:
                run.start(context, run.slot)


def _int(value) -> int:
    if type(value) is not int:
        raise wire.WireError("expected an integer")
    return value


def _list(value) -> list:
    if type(value) is not list:
        raise wire.WireError("expected a list")
    return value


def _error(data) -> ErrorInfo:
    if type(data) is not dict:
        raise wire.WireError("an error must be an object")
    frames = []
    for frame in _list(data.get("frames", [])):
        if type(frame) is not dict:
            raise wire.WireError("a frame must be an object")
        frames.append((wire.text(frame.get("file"), "file"), _int(frame.get("line")),
                       wire.text(frame.get("function"), "function"), wire.text(frame.get("code", ""), "code")))
    return ErrorInfo(
        type=wire.text(data.get("type"), "type"),
        message=wire.text(data.get("message", ""), "message"),
        module=wire.text(data.get("module", ""), "module"),
        contract=data.get("contract") is True,
        frames=tuple(frames),
    )


__all__ = ["Limits", "ErrorInfo", "TaskOutcome", "RunRecord", "SubmissionRun", "run_all", "STUDENT"]
