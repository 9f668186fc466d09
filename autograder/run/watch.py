"""The parent's watch over one child and all it started: memory, threads and processes, how it ended, killing.

Part of ``supervisor.SubmissionRun`` (its base class), apart so that each module stays one job: the
supervisor speaks the protocol and keeps the record; this measures and ends processes through /proc.
"""
from __future__ import annotations

import os
import time

from autograder.model.outcomes import RunStatus
from autograder.run.container import describe_limit, memory_limit, oom_kills
from autograder.run.isolation import CONTAINMENT_FAILED
from autograder.run.processes import (descendants, held_memory_files, kill_everything_of, memory_bytes,
                                      processes_of, resident_bytes, scratch_bytes, signal_name, tasks_of)

SIGXCPU, SIGKILL = 24, 9


class Watched:
    """What ``SubmissionRun`` knows of its child's processes (it sets ``child``, ``uid``, ``job``, ``limits``,
    ``record``, ``measures``, ``oom_kills_before`` and the family's last look)."""

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
