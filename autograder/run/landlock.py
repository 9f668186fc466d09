"""Landlock (Linux 5.13+): an unprivileged process restricts itself, for good, to an allowlist of files.

Where the child cannot have a private view of the files (no root, no user namespaces: a container's
default seccomp profile, Ubuntu's AppArmor restriction), it still restricts itself before the first cell:

- read (and execute) only the system's folders, Python's installation and the directories on its path,
  and, of the kit, the files of the modules a student's child holds; write only its working directory and
  /dev/null: no checkout, no solutions, no cache, no classmate, no journal, no shared /tmp, /var/tmp or
  /dev/shm;
- ABI 4+: no TCP, neither bind nor connect;
- ABI 6+: no signal to a process outside its own Landlock domain (the grader, the fork server, the other
  children), no connection to an abstract Unix socket made outside it.

Landlock also forbids ptrace of any process outside the domain, which closes /proc/PID/environ, mem and fd
of the grader's processes. Where the child does have a private view, the same rules are added on top.
"""
from __future__ import annotations

import ctypes
import os

from autograder.run.linux import PR_SET_NO_NEW_PRIVS, prctl, syscall

CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = (
    1 << n for n in range(4, 13))
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1
SCOPE_ABSTRACT_UNIX_SOCKET, SCOPE_SIGNAL = 1 << 0, 1 << 1

READ = EXECUTE | READ_FILE | READ_DIR
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
SYSTEM_READ = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/proc", "/sys")
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")  # read; /dev/null written too


class _Ruleset(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi() -> int:
    """The kernel's Landlock ABI version; 0 when it has none (or it is disabled). Safe to call anywhere."""
    version = syscall("landlock_create_ruleset", None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(0, version)


def handled_fs(version: int) -> int:
    rights = (1 << 13) - 1  # ABI 1
    if version >= 2:
        rights |= REFER
    if version >= 3:
        rights |= TRUNCATE
    if version >= 5:
        rights |= IOCTL_DEV
    return rights


def restrict(read: list[str], read_files: list[str], write: list[str]) -> list[str]:
    """Restrict this process (and all it starts) to reading ``read`` (directories) and ``read_files`` and
    writing ``write``; return the measures applied (none when the kernel has no Landlock)."""
    version = abi()
    if version < 1:
        return []
    fs = handled_fs(version)
    attributes = _Ruleset(fs, NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 else 0,
                          SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL if version >= 6 else 0)
    size = 8 if version < 4 else 16 if version < 6 else 24
    ruleset = syscall("landlock_create_ruleset", ctypes.byref(attributes), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        return []
    try:
        everything = fs & ~(MAKE_CHAR | MAKE_BLOCK)
        for paths, rights in ((SYSTEM_READ, READ), (read, READ), (write, everything), (["/dev/null"], READ_FILE
                                                                                     | WRITE_FILE)):
            for path in paths:
                _allow(ruleset, path, rights & fs)
        for path in (*read_files, *DEVICES):
            _allow(ruleset, path, READ_FILE & fs)
        if not prctl(PR_SET_NO_NEW_PRIVS, 1) or syscall("landlock_restrict_self", ctypes.c_int(ruleset),
                                                        ctypes.c_uint32(0)) != 0:
            return []
    finally:
        os.close(ruleset)
    applied = [f"Landlock ABI {version}: files limited to the system, Python and the child's modules"]
    if version >= 4:
        applied.append("no TCP")
    if version >= 6:
        applied.append("no signal or abstract socket outside the child")
    return applied


def _allow(ruleset: int, path: str, rights: int) -> None:
    try:
        handle = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return
    try:
        if not os.path.isdir(path):
            rights &= FILE_RIGHTS
        rule = _PathBeneath(rights, handle)
        syscall("landlock_add_rule", ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(rule),
                ctypes.c_uint32(0))
    finally:
        os.close(handle)
