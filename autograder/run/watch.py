"""The parent's watch over one child and all it started: its time and memory limits, threads and processes, how
it ended, killing.

Part of ``supervisor.SubmissionRun`` (its base class), apart so that each module stays one job: the
supervisor starts and restarts children and hands out tasks (``child_messages`` reads them); this measures
them against their limits and ends processes through /proc.
"""
from __future__ import annotations

import os
import time

from autograder.config import GiB
from autograder.model.outcomes import RunStatus
from autograder.run.container import describe_limit, memory_limit, oom_kills
from autograder.run.isolation import CONTAINMENT_FAILED
from autograder.run.processes import (descendants, held_memory_files, kill_everything_of, memory_bytes,
                                      processes_of, resident_bytes, scratch_bytes, signal_name, tasks_of)

SIGXCPU, SIGKILL = 24, 9


class Watched:
    """What ``SubmissionRun`` knows of its child's processes (it sets ``child``, ``uid``, ``job``, ``limits``,
    ``record``, ``measures``, ``oom_kills_before``, the deadlines and the family's last look, and stops a child).
    """

    def check_limits(self, now: float) -> None:
        """Stop the child that passed a limit: the submission's time, its task's (or cell's) time, its memory."""
        if self.child is None or not self.child.is_alive():
            return
        if now > self.submission_deadline():
            self._stop_child(f"the submission's time limit of {self.limits.submission_seconds:g} s was reached",
                             RunStatus.TIMEOUT, whole_submission=True)
        elif now > self.deadline:
            if self.current_task is not None:
                reason = (f"timeout after {self.time_limits[self.current_task]:g} s in "
                          f"{self.tasks[self.current_task].exercise}")
            elif self.expected.finishing:
                reason = f"the process did not exit within {self.limits.load_seconds:g} s after its last case"
            else:  # a cell of the notebook hung while loading
                reason = f"cell [{self.current_cell}] did not finish within {self.limits.load_seconds:g} s"
            self._stop_child(reason, RunStatus.TIMEOUT)
        elif self._resident() > self.limits.memory_bytes:
            self._stop_child(f"memory limit of {self.limits.memory_bytes / GiB:g} GiB exceeded", RunStatus.MEMORY)

    def submission_deadline(self) -> float:
        return self.started + self.limits.submission_seconds

    def _family_tasks(self) -> int:
        return tasks_of([self.child.pid, *descendants(self.child.pid)])

    def _resident(self) -> int:
        """The child's memory, plus every process it started and what its scratch tmpfs holds (which no
        process's memory counts; ``processes.memory_bytes``: the pages the children share with the fork server
        count once, not once per fork). Looked at at most 4 times a second (an allocation beyond the limit fails
        at once anyway: the child's address-space limit). The resident sizes come first: they count the shared
        pages in full, so they bound the proportional ones from above, and only a family whose resident size
        passes the limit needs its memory maps read (8 ms a TensorFlow process: the parent's largest cost, 7 % of
        its children's time when read every look, measured with py-spy on five jacobians notebooks)."""
        now = time.monotonic()
        if now - self._family_checked > 0.25:
            self._family_checked = now
            family = set(descendants(self.child.pid, max_age=0.2))
            if self.uid is not None:
                family |= set(processes_of(self.uid, max_age=0.2))  # even one that left the child's tree
            family.discard(self.child.pid)
            # The child reports its containment before any student code runs: whether it has a scratch tmpfs.
            scratch = scratch_bytes(self.child.pid, self.job.containment.scratch) if any(
                m.startswith("one scratch tmpfs") for m in self.measures) else 0
            pids = [self.child.pid, *family]
            files = scratch + held_memory_files(pids)  # tmpfs pages that are no process's
            bound = sum(resident_bytes(pid) for pid in pids) + files
            self._family_bytes = bound if bound <= self.limits.memory_bytes else sum(
                memory_bytes(pid) for pid in pids) + files
        return self._family_bytes

    def _kill(self) -> None:
        if self.child is None:
            return
        family = descendants(self.child.pid)  # before it dies: then they are orphans, out of its tree
        self.child.kill()
        for pid in family:
            try:
                os.kill(pid, SIGKILL)
            except OSError:
                pass
        self.child.join(5)
        self.kill_leftovers()

    def kill_leftovers(self) -> None:
        """Processes the student started that escaped the child's session: none may outlive it. (In a PID
        namespace the kernel has ended them all already; this is for the machines that give none.)"""
        if self.uid is not None:
            kill_everything_of(self.uid)
        elif self.child is not None:
            for pid in descendants(self.child.pid):
                try:
                    os.kill(pid, SIGKILL)
                except OSError:
                    pass

    def exit_reason(self, code: int | None) -> tuple[str, RunStatus]:
        """Why the child ended without saying done, in the grader's words, and the status that follows."""
        status = RunStatus.CRASHED
        if code == -SIGXCPU:
            reason = f"CPU time limit of {self.job.containment.cpu_seconds} s exceeded"
        elif code == -SIGKILL and self.oom_kills_before is not None and oom_kills() != self.oom_kills_before:
            # The kernel's, not ours: the machine's or container's memory ran out before our own limit.
            reason = "out of memory: the system's out-of-memory killer stopped it" + describe_limit(memory_limit())
            status = RunStatus.MEMORY
        elif code == CONTAINMENT_FAILED and not self.record.loaded:
            reason = ("the grader could not contain this submission's process on this machine (its files would "
                      "not be private), so it did not run it: tell your instructor")
        elif code is not None and code < 0:
            reason = f"the process was killed by {signal_name(-code)}"
        else:
            reason = f"the process exited with code {code} before grading finished"
        return reason, status
