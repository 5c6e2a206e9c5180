"""The one writer: every file mcpcost creates or replaces (results, badges, pages, reports,
sign-ins) is written here, atomically, inside a tree, with one-line errors.

Every write goes to a temporary file in the target's own directory, is flushed with ``fsync``
and renamed over the target, so a reader (or a crash) sees the old bytes or the new ones, never
half. Below the output root no path component may be a symbolic link: each directory is opened
with ``O_NOFOLLOW`` relative to its parent's descriptor, so a ``results/<name>`` or ``badges``
link cannot send a write elsewhere, and a link in the target's place is replaced, not followed.
The root itself is the caller's choice and may be a link. ``Access`` says who may read what is
created: everyone (results) or the owner only (sign-ins, 0600 in 0700 directories). (The Action
also appends to the files the GitHub runner hands it, ``GITHUB_OUTPUT`` and the step summary:
that is the runner's protocol, in ``action/runner_files.py``, not a file of ours.)

A failed write (disk full, quota, I/O error, permission) raises ``OutputError`` with one line,
after removing the temporary file; the previous file is left whole.

``TreeTransaction`` changes several files of a tree at once: new contents are staged under
``<root>/.mcpcost-pending``; ``commit`` writes a journal there (the commit point) and renames each
staged file into place. Staged files are written without an ``fsync`` each (a sweep stages two
per entry, and the flushes were most of its writing); ``commit`` makes them all durable at once
(``flush_files``) before the journal, so what a journal names survives a machine's crash. ``open_tree`` locks the tree and first finishes or discards whatever an
earlier, killed command left: with a journal the commit is rolled forward, without one the staged
files are thrown away. Either way the tree is the old one or the new one, never a mix.

A long command may instead resume: ``open_tree(root, resume=KEY)`` keeps what a killed command
staged under the same key (a sweep's selection) and hands it to the new transaction, so the
work is not redone; staged files are still only staged, and reach the tree in the next commit.
A staged file kept across a machine's crash (not a kill, which loses nothing written) may be
empty or cut: its reader treats it as not staged (a sweep measures that entry again).
Such a command leaves what it staged when it is interrupted (SIGINT, SIGTERM: a CI job
cancelled or out of time) or killed outright; one that fails with an error drops it, as every
command does.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import sys
import threading
from collections.abc import Iterable, Iterator
from enum import Enum
from pathlib import Path, PurePosixPath

from mcpcost.core.jsonvalue import parse_json, stringify
from mcpcost.errors import InputError, OutputError
from mcpcost.runtime.world_files import MAX_TREE_FILE_BYTES, NONBLOCKING_OPEN, read_open_file

PENDING_DIR = ".mcpcost-pending"
JOURNAL = "journal"
LOCK = "lock"
RESUME = "resume"  # the key of the command whose staged files may be resumed
_NO_SPACE = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO}
# POSIX flags, read so that the module imports where they do not exist (Windows has neither
# O_DIRECTORY nor O_NOFOLLOW, nor ``dir_fd``): the descriptor walks below are POSIX code.
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_DIR_FLAGS = os.O_RDONLY | _DIRECTORY | _NO_FOLLOW | _CLOEXEC


class Access(Enum):
    """Who may read what the writer creates: (file mode, directory mode), umask aside for
    directories; a file gets exactly its mode."""

    EVERYONE = (0o644, 0o755)  # results, badges, pages, reports
    OWNER = (0o600, 0o700)  # sign-ins: tokens and client secrets

    @property
    def file_mode(self) -> int:
        return self.value[0]

    @property
    def dir_mode(self) -> int:
        return self.value[1]


def write_error(path: Path | str, exc: OSError) -> OutputError:
    """The one-line error for a failed write of ``path``."""
    reason = exc.strerror or type(exc).__name__
    if exc.errno in _NO_SPACE:
        return OutputError(f"cannot write {path}: {reason} (the previous file is left as it was)")
    return OutputError(f"cannot write {path}: {reason}")


def _rel_parts(rel: str) -> tuple[str, ...]:
    parts = PurePosixPath(rel).parts
    if not parts or PurePosixPath(rel).is_absolute() or any(p in ("", ".", "..") for p in parts):
        raise OutputError(f"refusing to write {rel!r}: not a plain path inside the output tree")
    return parts


def _open_root(root: Path, *, create: bool, access: Access = Access.EVERYONE) -> int:
    if create:
        try:
            root.mkdir(mode=access.dir_mode, parents=True, exist_ok=True)
        except FileExistsError:
            raise OutputError(f"cannot write under {root}: not a directory") from None
        except OSError as exc:
            raise write_error(root, exc) from None
    try:
        return os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError as exc:
        raise write_error(root, exc) from None


def _open_child(
    parent_fd: int, name: str, shown: Path, *, create: bool, access: Access = Access.EVERYONE
) -> int | None:
    """A descriptor of directory ``name`` under ``parent_fd``; never through a symbolic link."""
    if create:
        try:
            os.mkdir(name, access.dir_mode, dir_fd=parent_fd)
        except FileExistsError:
            pass
        except OSError as exc:
            raise write_error(shown, exc) from None
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=parent_fd)
    except FileNotFoundError:
        if create:
            raise OutputError(f"cannot write under {shown}: it vanished while writing") from None
        return None
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
            what = "a symbolic link" if stat.S_ISLNK(st.st_mode) else "not a directory"
            raise OutputError(f"refusing to write under {shown}: it is {what}") from None
        raise write_error(shown, exc) from None


@contextlib.contextmanager
def _directory(
    root: Path, parts: tuple[str, ...], *, create: bool, access: Access = Access.EVERYONE
) -> Iterator[int | None]:
    """A descriptor of ``root/parts...`` opened component by component (None: missing)."""
    fd: int | None = _open_root(root, create=create, access=access)
    shown = root
    try:
        for part in parts:
            shown = shown / part
            assert fd is not None
            child = _open_child(fd, part, shown, create=create, access=access)
            os.close(fd)
            fd = child
            if fd is None:
                break
        yield fd
    finally:
        if fd is not None:
            os.close(fd)


def _write_at(
    dir_fd: int, name: str, data: bytes, shown: Path, mode: int, *, durable: bool = True
) -> None:
    tmp = f".{name}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(
            tmp,
            os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW | _CLOEXEC,
            mode,
            dir_fd=dir_fd,
        )
    except OSError as exc:
        raise write_error(shown, exc) from None
    try:
        try:
            os.fchmod(fd, mode)  # exactly ``mode``, whatever the umask
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp, dir_fd=dir_fd)
        if isinstance(exc, OSError):
            raise write_error(shown, exc) from None
        raise
    if durable:
        _sync_dir(dir_fd)


def _sync_dir(dir_fd: int) -> None:
    with contextlib.suppress(OSError):  # not every file system can fsync a directory
        os.fsync(dir_fd)


def _encode(data: str | bytes) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def write_in_tree(
    root: Path,
    rel: str,
    data: str | bytes,
    *,
    shown: Path | None = None,
    access: Access = Access.EVERYONE,
    durable: bool = True,
) -> None:
    """Atomically write ``root/rel``, creating directories; no component below root is a link.

    ``shown`` is the path a failure names (default ``root/rel``); ``access`` the modes of the
    file and of the directories created for it (the root included). ``durable`` False leaves
    the flush to the caller (``TreeTransaction`` flushes all it staged before its commit point).
    """
    parts = _rel_parts(rel)
    with _directory(root, parts[:-1], create=True, access=access) as fd:
        assert fd is not None
        where = shown or root.joinpath(*parts)
        _write_at(fd, parts[-1], _encode(data), where, access.file_mode, durable=durable)


def flush_files(root: Path, rels: Iterable[str]) -> None:
    """Make the files ``root/rel`` (written with ``durable=False``) and their directory entries
    durable, reporting a write-back error as a failed write. One ``sync`` writes everything
    back at once; each file and directory is then synced, which finds them clean and so costs
    little, but reports an error the write-back met (Linux keeps it for the next ``fsync``)."""
    if hasattr(os, "sync"):
        os.sync()
    folders: set[tuple[str, ...]] = set()
    for rel in sorted(rels):
        parts = _rel_parts(rel)
        folders.add(parts[:-1])
        with _directory(root, parts[:-1], create=False) as dir_fd:
            if dir_fd is None:
                continue
            try:
                fd = os.open(parts[-1], os.O_RDONLY | _NO_FOLLOW | _CLOEXEC, dir_fd=dir_fd)
            except FileNotFoundError:
                continue
            except OSError as exc:
                raise write_error(root.joinpath(*parts), exc) from None
            try:
                os.fsync(fd)
            except OSError as exc:
                raise write_error(root.joinpath(*parts), exc) from None
            finally:
                os.close(fd)
    for folder in sorted(folders):
        with _directory(root, folder, create=False) as dir_fd:
            if dir_fd is not None:
                _sync_dir(dir_fd)


def atomic_write(path: Path | str, data: str | bytes, *, access: Access = Access.EVERYONE) -> None:
    """Atomically write one file; its directory is created if missing (parents as given)."""
    path = Path(path)
    write_in_tree(path.parent, path.name, data, access=access)


def read_in_tree(root: Path, rel: str) -> bytes | None:
    """Bytes of ``root/rel``, or None when missing, not a regular file (checked without
    blocking on a FIFO), larger than ``MAX_TREE_FILE_BYTES``, or reached via a link."""
    parts = _rel_parts(rel)
    try:
        with _directory(root, parts[:-1], create=False) as fd:
            if fd is None:
                return None
            flags = os.O_RDONLY | _NO_FOLLOW | _CLOEXEC | NONBLOCKING_OPEN
            try:
                file_fd = os.open(parts[-1], flags, dir_fd=fd)
            except OSError:
                return None
            try:  # a FIFO or device is refused unread, and so is a file past the cap
                return read_open_file(file_fd, rel, max_bytes=MAX_TREE_FILE_BYTES)
            except OSError:
                return None
            finally:
                os.close(file_fd)
    except OutputError:
        return None


def _remove_at(dir_fd: int, name: str) -> None:
    """Remove ``name`` (file, link or directory tree) under ``dir_fd``; links are not followed."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(st.st_mode):
        os.unlink(name, dir_fd=dir_fd)
        return
    child = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    try:
        for entry in os.listdir(child):
            _remove_at(child, entry)
    finally:
        os.close(child)
    os.rmdir(name, dir_fd=dir_fd)


class TreeTransaction:
    """Changes to files under one root, applied all together by ``commit`` or not at all.

    ``put`` stages new bytes under ``<root>/.mcpcost-pending``; ``read`` sees staged changes over
    the tree. Threads may stage different files at once; ``commit`` and ``discard`` are the
    owner's, once they are done. Obtain one from ``open_tree``, which holds the tree's lock.
    """

    def __init__(self, root: Path, staged: Iterable[str] = ()) -> None:
        self.root = root
        self.pending = root / PENDING_DIR
        self._puts: set[str] = set(staged)  # a resumed command's staged files (open_tree)
        self._removes: set[str] = set()
        self._lock = threading.Lock()  # several threads may stage files (a sweep's workers)
        self.committed = False
        self.journal_written = False

    def put(self, rel: str, data: str | bytes) -> None:
        """Stage ``data`` as the new content of ``rel``."""
        _rel_parts(rel)
        write_in_tree(self.pending, f"tree/{rel}", data, shown=self.root / rel, durable=False)
        with self._lock:
            self._puts.add(rel)
            self._removes.discard(rel)

    def put_if_changed(self, rel: str, data: str | bytes) -> bool:
        """Stage ``data`` unless ``rel`` already reads as exactly it; True when staged."""
        raw = _encode(data)
        if self.read(rel) == raw:
            return False
        self.put(rel, raw)
        return True

    def unstage(self, rel: str) -> None:
        """Drop what is staged for ``rel``: the commit leaves ``rel`` as the tree has it."""
        with self._lock:
            self._puts.discard(rel)
            self._removes.discard(rel)

    def remove(self, rel: str) -> None:
        """Stage the removal of ``rel``."""
        _rel_parts(rel)
        with self._lock:
            self._puts.discard(rel)
            self._removes.add(rel)

    def read(self, rel: str) -> bytes | None:
        """What ``rel`` would hold after commit."""
        if rel in self._removes:
            return None
        if rel in self._puts:
            return read_in_tree(self.pending, f"tree/{rel}")
        return read_in_tree(self.root, rel)

    def is_staged(self, rel: str) -> bool:
        """Whether ``rel`` has new content staged (by this command, or a resumed one)."""
        return rel in self._puts

    def staged_names(self, folder: str) -> set[str]:
        """Names staged directly under ``folder`` (relative to the root)."""
        prefix = folder.rstrip("/") + "/"
        return {r[len(prefix) :].split("/", 1)[0] for r in self._puts if r.startswith(prefix)}

    def commit(self) -> None:
        """Write the journal (the commit point), then move every staged change into place."""
        if self.committed:
            return
        if not self._puts and not self._removes:
            self.committed = True
            return
        for rel in sorted(self._puts):  # refuse a link in the way before the commit point
            with _directory(self.root, _rel_parts(rel)[:-1], create=False):
                pass  # existing components are opened without following links; none is created
        # the staged files were written without a flush each: all are made durable before the
        # journal that names them
        flush_files(self.pending, (f"tree/{rel}" for rel in self._puts))
        journal = {"put": sorted(self._puts), "remove": sorted(self._removes)}
        write_in_tree(self.pending, JOURNAL, stringify(journal) + "\n")
        self.journal_written = True
        roll_forward(self.root)
        self.committed = True

    def discard(self) -> None:
        """Drop every staged change; the tree stays as it was."""
        with _directory(self.root, (), create=False) as fd:
            if fd is not None:
                _remove_tree_contents(fd)
        self._puts.clear()
        self._removes.clear()


def _remove_tree_contents(root_fd: int) -> None:
    """Remove the staged tree and journal, keeping the pending directory (it holds the lock)."""
    try:
        pending = os.open(PENDING_DIR, _DIR_FLAGS, dir_fd=root_fd)
    except FileNotFoundError:
        return
    try:
        for name in os.listdir(pending):
            if name != LOCK:
                _remove_at(pending, name)
    finally:
        os.close(pending)


def _journal_entries(raw: bytes, shown: Path) -> list[tuple[str, str]]:
    try:
        doc = parse_json(raw)
    except InputError:
        doc = None
    if not isinstance(doc, dict):
        raise OutputError(f"{shown}: unreadable commit journal; remove it to discard that commit")
    entries: list[tuple[str, str]] = []
    for verb in ("put", "remove"):
        for rel in doc.get(verb) or []:
            if not isinstance(rel, str) or rel.split("/", 1)[0] == PENDING_DIR:
                raise OutputError(f"{shown}: the journal names {rel!r}")
            _rel_parts(rel)
            entries.append((verb, rel))
    return entries


def roll_forward(root: Path) -> int:
    """Apply a written journal: move staged files into place, apply removals; idempotent.

    Returns the number of changes applied (files already moved are skipped). Each directory a
    file was moved into is synced once, after the last move and before the journal goes: until
    then a move lost to a crash is made again from the journal.
    """
    raw = read_in_tree(root / PENDING_DIR, JOURNAL)
    if raw is None:
        return 0
    applied = 0
    moved_into: set[tuple[str, ...]] = set()
    for verb, rel in _journal_entries(raw, root / PENDING_DIR / JOURNAL):
        parts = _rel_parts(rel)
        target = root.joinpath(*parts)
        with _directory(root / PENDING_DIR, ("tree", *parts[:-1]), create=False) as src:
            if verb == "put":
                if src is None:
                    continue
                try:
                    os.stat(parts[-1], dir_fd=src, follow_symlinks=False)
                except FileNotFoundError:
                    continue  # moved by an earlier, interrupted commit
                with _directory(root, parts[:-1], create=True) as dst:
                    assert dst is not None
                    try:
                        os.replace(parts[-1], parts[-1], src_dir_fd=src, dst_dir_fd=dst)
                    except OSError as exc:
                        raise write_error(target, exc) from None
                moved_into.add(parts[:-1])
                applied += 1
            else:
                with _directory(root, parts[:-1], create=False) as dst:
                    if dst is None:
                        continue
                    with contextlib.suppress(FileNotFoundError):
                        st = os.stat(parts[-1], dir_fd=dst, follow_symlinks=False)
                        if stat.S_ISREG(st.st_mode):
                            os.unlink(parts[-1], dir_fd=dst)
                            applied += 1
    for folder in sorted(moved_into):
        with _directory(root, folder, create=False) as dst:
            if dst is not None:
                _sync_dir(dst)
    with _directory(root, (PENDING_DIR,), create=False) as pending:
        if pending is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(JOURNAL, dir_fd=pending)
            _sync_dir(pending)
    return applied


def try_lock(fd: int) -> bool:
    """Take an exclusive lock on the open file ``fd`` without waiting; False when another
    process holds it. The lock ends with the descriptor (or the process)."""
    if sys.platform == "win32":
        import msvcrt

        try:  # the file's first byte, non-blocking
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False
    return True


def _lock(root: Path) -> int:
    """Hold the tree's lock (a file in the pending directory); OutputError when it is busy."""
    while True:
        with _directory(root, (PENDING_DIR,), create=True) as pending:
            assert pending is not None
            try:
                fd = os.open(
                    LOCK,
                    os.O_RDWR | os.O_CREAT | _NO_FOLLOW | _CLOEXEC,
                    Access.EVERYONE.file_mode,
                    dir_fd=pending,
                )
            except OSError as exc:
                raise write_error(root / PENDING_DIR / LOCK, exc) from None
            if not try_lock(fd):
                os.close(fd)
                raise OutputError(
                    f"another mcpcost command is writing {root} (lock {root / PENDING_DIR / LOCK})"
                ) from None
            try:
                same = os.fstat(fd).st_ino == os.stat(LOCK, dir_fd=pending).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return fd
            os.close(fd)  # the previous holder removed the directory as we opened it


def _staged_files(pending_fd: int) -> set[str]:
    """The files under ``tree`` in the pending directory, relative to the root; links and the
    temporary files of an interrupted write are skipped."""
    found: set[str] = set()
    try:
        top = os.open("tree", _DIR_FLAGS, dir_fd=pending_fd)
    except OSError:
        return found
    stack: list[tuple[int, str]] = [(top, "")]
    while stack:
        fd, prefix = stack.pop()
        try:
            for name in os.listdir(fd):
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    stack.append((os.open(name, _DIR_FLAGS, dir_fd=fd), f"{prefix}{name}/"))
                elif stat.S_ISREG(st.st_mode) and not (
                    name.startswith(".") and name.endswith(".tmp")
                ):
                    found.add(prefix + name)
        finally:
            os.close(fd)
    return found


def _resumable(root: Path, key: str) -> set[str]:
    """What a killed command with ``key`` staged, kept; anything else staged is dropped and
    ``key`` recorded for the command that opens the tree now. The caller holds the lock."""
    with _directory(root, (PENDING_DIR,), create=False) as pending:
        if pending is None:
            return set()
        prior = read_in_tree(root / PENDING_DIR, RESUME)
        if prior is not None and prior.decode("utf-8", "replace") == key:
            return _staged_files(pending)
    with _directory(root, (), create=False) as fd:
        if fd is not None:
            _remove_tree_contents(fd)
    write_in_tree(root / PENDING_DIR, RESUME, key)
    return set()


def recover_tree(root: Path) -> int:
    """Finish a commit a killed command left behind, or drop its staged files.

    The caller holds the lock. Returns the number of changes rolled forward.
    """
    applied = roll_forward(root)
    with _directory(root, (), create=False) as fd:
        if fd is not None:
            _remove_tree_contents(fd)
    return applied


@contextlib.contextmanager
def open_tree(root: Path, *, resume: str | None = None) -> Iterator[TreeTransaction]:
    """Lock ``root``, recover what a killed command left, and yield a transaction.

    Leaving the block without ``commit`` discards the staged changes, and the pending directory
    is removed. A commit that failed after its journal was written is left for the next
    ``open_tree`` to roll forward. With ``resume``, files a killed or interrupted command opened
    with the same key had staged (and not committed) are kept, staged in the new transaction;
    an interrupt (``KeyboardInterrupt``) then leaves this command's staged files too.
    """
    lock = _lock(root)
    try:
        if resume is None:
            recover_tree(root)
            kept: set[str] = set()
        else:
            roll_forward(root)
            try:
                kept = _resumable(root, resume)
            except OutputError:  # nothing staged is left to keep (the key could not be written)
                with _directory(root, (), create=False) as fd:
                    if fd is not None:
                        with contextlib.suppress(OSError):
                            _remove_at(fd, PENDING_DIR)
                raise
        txn = TreeTransaction(root, kept)
        interrupted = False
        try:
            yield txn
        except KeyboardInterrupt:  # SIGINT or SIGTERM (cli/interrupts.py)
            interrupted = True
            raise
        finally:
            # an interrupted command with a resume key leaves what it staged to be resumed
            keep = interrupted and resume is not None and not txn.journal_written
            if not txn.journal_written and not keep:
                txn.discard()
            if (txn.committed or not txn.journal_written) and not keep:
                with _directory(root, (), create=False) as fd:
                    if fd is not None:
                        with contextlib.suppress(OSError):
                            _remove_at(fd, PENDING_DIR)
    finally:
        os.close(lock)
