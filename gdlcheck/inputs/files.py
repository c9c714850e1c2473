"""The bytes of an input: a regular file or standard input, read within the size limit.

Every input goes through here before it is parsed, so an over-large file is refused by its
size, and a FIFO, a device or a socket is refused before ``open`` could block on it.
"""

from __future__ import annotations

import os

from gdlcheck.errors import SpecError
from gdlcheck.limits import MAX_FILE_BYTES


def read_bytes(path: str) -> bytes:
    """The bytes of ``path`` (``-`` is standard input), refusing files over the size limit.

    Only a regular file is opened: a FIFO, a device or a socket is refused before ``open``
    could block on it (and the descriptor is checked again after, non-blocking).
    """
    import sys

    if path == "-":
        if sys.stdin is None or not hasattr(sys.stdin, "buffer"):
            raise SpecError("standard input is closed", file=path)
        try:
            data = _read_limited(sys.stdin.buffer, MAX_FILE_BYTES + 1)
        except OSError as err:
            raise SpecError(f"cannot read: {(err.strerror or str(err)).lower()}", file=path) from None
    else:
        try:
            info = os.stat(path)
        except (OSError, ValueError) as err:
            raise SpecError(f"cannot read: {_reason(err)}", file=path) from None
        _check_regular(info.st_mode, path)
        if info.st_size > MAX_FILE_BYTES:
            raise SpecError(f"file of {info.st_size} bytes exceeds the limit of {MAX_FILE_BYTES}", file=path)
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as err:
            raise SpecError(f"cannot read: {_reason(err)}", file=path) from None
        try:
            _check_regular(os.fstat(fd).st_mode, path)  # replaced between stat and open
            with os.fdopen(fd, "rb", closefd=False) as fh:
                data = fh.read(min(info.st_size, MAX_FILE_BYTES) + 1)  # its size, not the limit, allocated
        except OSError as err:
            raise SpecError(f"cannot read: {_reason(err)}", file=path) from None
        finally:
            os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise SpecError(f"input exceeds the limit of {MAX_FILE_BYTES} bytes", file=path)
    return data


def _read_limited(fh, limit: int) -> bytes:
    """At most ``limit`` bytes, read in blocks (``read(limit)`` would allocate all of it at once)."""
    parts, total = [], 0
    while total < limit:
        asked = min(1 << 22, limit - total)
        block = fh.read(asked)
        parts.append(block)
        total += len(block)
        # a buffered read returns less than asked only at the end: reading on would wait on a
        # terminal, whose end (Ctrl-D) is not sticky, for a second Ctrl-D
        if len(block) < asked:
            break
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _reason(err: Exception) -> str:
    return (getattr(err, "strerror", None) or str(err) or type(err).__name__).lower()


def _check_regular(mode: int, path: str) -> None:
    import stat

    if stat.S_ISDIR(mode):
        raise SpecError("is a folder, not a file", file=path)
    if not stat.S_ISREG(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        raise SpecError(
            f"is {kind}, not a regular file (only regular files are read; use - for standard input)", file=path
        )


def decode_text(data: bytes, path: str) -> str:
    if b"\x00" in data:
        raise SpecError("binary data where text was expected", file=path)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise SpecError("not UTF-8 text", file=path) from None
