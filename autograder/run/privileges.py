"""Giving up privileges for good, last thing before the submission's first cell.

- As root: an unprivileged uid (and gid) of the child's own, no supplementary groups.
- As root of its own user namespace (the grader is another user): the same uid, but every capability
  dropped, and the securebits locked so that no program it runs as "root" of that namespace gets them back;
  without capabilities it cannot unmount what covers the machine's files, nor mount anything.
- In both: no new privileges (a setuid program such as ``su`` or ``mount`` runs without its privileges)
  and not dumpable (other processes of the same user cannot read its memory, environment or descriptors).
"""
from __future__ import annotations

import ctypes
import os

from autograder.run.linux import (PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS,
                                  PR_SET_SECUREBITS, not_dumpable, prctl, syscall)

SECBIT_NOROOT, SECBIT_NOROOT_LOCKED = 1 << 0, 1 << 1
SECBIT_NO_SETUID_FIXUP, SECBIT_NO_SETUID_FIXUP_LOCKED = 1 << 2, 1 << 3
SECBIT_KEEP_CAPS_LOCKED = 1 << 5
SECBIT_NO_CAP_AMBIENT_RAISE, SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED = 1 << 6, 1 << 7
LINUX_CAPABILITY_VERSION_3 = 0x20080522


class _Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def become(uid: int) -> None:
    """Root only: run as ``uid`` from now on (raises OSError when the kernel refuses)."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)


def drop_capabilities() -> bool:
    """Every capability gone, for good (see the module's docstring); True when none is left."""
    prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP
          | SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE
          | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED)
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    for capability in range(64):
        if not prctl(PR_CAPBSET_DROP, capability) and capability > 40:
            break  # past the last capability this kernel knows
    header = _Header(LINUX_CAPABILITY_VERSION_3, 0)
    data = (_Data * 2)()
    syscall("capset", ctypes.byref(header), ctypes.byref(data))
    return effective_capabilities() == 0


def effective_capabilities() -> int | None:
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError):
        pass
    return None


def seal() -> list[str]:
    """No new privileges, not dumpable: for every child, whoever runs the grader."""
    applied = []
    if prctl(PR_SET_NO_NEW_PRIVS, 1):
        applied.append("no new privileges")
    if not_dumpable():
        applied.append("not dumpable")
    return applied
