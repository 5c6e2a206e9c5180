"""Reading a file that came from the world (a config in a cloned repository, the ``envFile`` it
names), bounded: ``read_world_file``.

- **Regular files only**, and no open that can block: the file is opened with ``O_NONBLOCK``
  (and ``O_NOCTTY``), so a FIFO with no writer or a terminal opens at once, and then ``fstat``
  of the open descriptor decides; a FIFO, socket, character or block device (``/dev/zero``,
  a tty) or a directory is refused without a byte being read. Where ``O_NONBLOCK`` does not
  exist (Windows) the path is ``stat``-ed first, so such files are refused before the open.
- **A size cap**: a file larger than ``max_bytes`` is refused before it is read, and reading
  stops past the cap if the file grows meanwhile.
- **Symbolic links as the caller allows** (``Links``): followed anywhere, refused, or followed
  only when the file they lead to is inside a given directory.

``read_open_file`` applies the same checks to a descriptor the caller opened itself (the
output tree opens relative to a directory descriptor, with ``NONBLOCKING_OPEN``).

A refusal is a ``WorldFileRefused``, an ``OSError`` whose ``strerror`` says why, so a reader
that reports ``OSError`` reasons reports it unchanged; a missing file stays
``FileNotFoundError``.
"""

from __future__ import annotations

import errno
import os
import stat
from enum import StrEnum

from mcpcost.errors import McpcostError

MAX_CONFIG_BYTES = 64 << 20  # a client config file (~/.claude.json keeps history and grows)
MAX_ENV_FILE_BYTES = 1 << 20  # an envFile of KEY=value lines
MAX_TREE_FILE_BYTES = 256 << 20  # a file of a published tree (a measurement holds its capture)
NONBLOCKING_OPEN = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
_READ = 1 << 16

_NOT_REGULAR = (
    (stat.S_ISDIR, errno.EISDIR, "is a directory"),
    (stat.S_ISFIFO, errno.EINVAL, "not a regular file (a FIFO)"),
    (stat.S_ISSOCK, errno.EINVAL, "not a regular file (a socket)"),
    (stat.S_ISCHR, errno.EINVAL, "not a regular file (a character device)"),
    (stat.S_ISBLK, errno.EINVAL, "not a regular file (a block device)"),
)


class Links(StrEnum):
    """What to do when the path is a symbolic link (or passes through one)."""

    FOLLOW = "follow"  # wherever it leads
    REFUSE = "refuse"  # the file itself must not be a link (links above it are followed)
    WITHIN = "within"  # only to a file inside the caller's ``root``


class WorldFileRefused(McpcostError, OSError):
    """A file from the world that is not read: not a regular file, too large, or a link the
    caller does not allow. ``strerror`` says which."""


def _refused(path: str, code: int, reason: str) -> WorldFileRefused:
    return WorldFileRefused(code, reason, path)


def _check_regular(path: str, mode: int) -> None:
    if stat.S_ISREG(mode):
        return
    for test, code, reason in _NOT_REGULAR:
        if test(mode):
            raise _refused(path, code, reason)
    raise _refused(path, errno.EINVAL, "not a regular file")


def read_world_file(
    path: str | os.PathLike[str],
    *,
    max_bytes: int,
    links: Links = Links.FOLLOW,
    root: str | os.PathLike[str] | None = None,
) -> bytes:
    """The bytes of a regular file of at most ``max_bytes``, read without blocking on what is
    not one. ``root`` is required with ``Links.WITHIN``."""
    name = os.fspath(path)
    target = name
    if links is Links.WITHIN:
        if root is None:
            raise ValueError("Links.WITHIN needs a root")
        base = os.path.realpath(root)
        target = os.path.realpath(name)
        if os.path.commonpath([base, target]) != base:
            raise _refused(name, errno.ELOOP, f"a symbolic link leading out of {base}")
    flags = os.O_RDONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    flags |= getattr(os, "O_BINARY", 0)
    if links is not Links.FOLLOW:  # WITHIN opens the resolved path: a link now is a race
        flags |= getattr(os, "O_NOFOLLOW", 0)
    nonblocking = getattr(os, "O_NONBLOCK", 0)
    if nonblocking:
        flags |= nonblocking
    else:  # no non-blocking open here: look before opening
        _check_regular(name, os.stat(target).st_mode)
    try:
        fd = os.open(target, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP and links is not Links.FOLLOW:
            raise _refused(name, errno.ELOOP, "is a symbolic link") from None
        raise
    try:
        return read_open_file(fd, name, max_bytes=max_bytes)
    finally:
        os.close(fd)


def read_open_file(fd: int, name: str, *, max_bytes: int) -> bytes:
    """The bytes behind a descriptor the caller opened (with ``NONBLOCKING_OPEN`` among its
    flags), when it is a regular file of at most ``max_bytes``; ``name`` is for the error.
    The caller closes ``fd``."""
    info = os.fstat(fd)
    _check_regular(name, info.st_mode)
    if info.st_size > max_bytes:
        raise _refused(name, errno.EFBIG, f"larger than {max_bytes} bytes")
    chunks: list[bytes] = []
    size = 0
    while chunk := os.read(fd, _READ):
        size += len(chunk)
        if size > max_bytes:
            raise _refused(name, errno.EFBIG, f"larger than {max_bytes} bytes")
        chunks.append(chunk)
    return b"".join(chunks)
