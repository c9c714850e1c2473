"""Standard output and standard error as the command line uses them: exits that tell the truth.

* **A closed pipe** (``gdlcheck verify ... | head -1``: the reader went away) is not an
  error: the rest of the output is discarded and the exit code stays the verdicts' (as if
  the output went to ``/dev/null``), so ``set -o pipefail`` never sees a holding layer fail.
* **Any other failure to write** -- a full disk (``> /dev/full``), an I/O error, a closed
  standard output (``>&-``) -- is one line on standard error and exit 74
  (:data:`~gdlcheck.cli.common.EXIT_OUTPUT`, sysexits' ``EX_IOERR``).
* **Text the stream cannot encode** (a name in Cyrillic on an ASCII terminal, a lone
  surrogate from a file name) is written escaped (``\\u0430``), never an error.
* **Python warnings** (numpy's overflow and casting warnings, ...) and **libraries' log
  records** (torch logs a traceback when a shape probe of a module fails, before gdlcheck
  reports the wrong ``--input-shape`` in one line) never reach standard error: what they mean is
  reported where it matters (a non-finite output is an error, a complex weight a note).
"""

from __future__ import annotations

import contextlib
import errno
import io
import logging
import os
import sys
import warnings

from gdlcheck.cli.common import OutputError, output_failed


class _GuardedBuffer(io.RawIOBase):
    """The bytes of standard output, written through to the real stream with its errors sorted:
    EPIPE closes the pipe quietly (later writes are discarded), anything else is an OutputError.

    After a failure the rest of the output is discarded too (:attr:`error` keeps it): the error
    is reported once, and nothing is left to fail again in a later flush."""

    def __init__(self, target):
        super().__init__()
        self._target = target
        self.pipe_closed = False
        self.error: OutputError | None = None

    @property
    def stopped(self) -> bool:
        """Nothing more is written: the reader went away, or a write failed."""
        return self.pipe_closed or self.error is not None

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        size = len(data)
        if self.stopped:
            return size
        if self._target is None:
            raise self._failed(OutputError("cannot write standard output: it is closed"))
        self._guarded(lambda: self._target.write(bytes(data)))
        return size

    def flush(self) -> None:
        if self.stopped or self._target is None:
            return
        self._guarded(self._target.flush)

    def _failed(self, error: OutputError) -> OutputError:
        self.error = error
        return error

    def _guarded(self, call) -> None:
        """``call()``: a closed pipe is remembered (the rest is discarded), any other failure to
        write is one OutputError."""
        try:
            call()
        except BrokenPipeError:
            self.pipe_closed = True
        except OSError as err:
            if err.errno == errno.EPIPE:
                self.pipe_closed = True
            else:
                raise self._failed(output_failed(err, "standard output")) from None
        except ValueError:  # the stream itself was closed
            raise self._failed(OutputError("cannot write standard output: it is closed")) from None

    def isatty(self) -> bool:
        try:
            return bool(self._target is not None and self._target.isatty())
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self._target is None:
            raise OSError(errno.EBADF, "standard output is closed")
        return self._target.fileno()

    def close(self) -> None:  # never closes the real standard output
        with contextlib.suppress(OutputError):
            self.flush()
        super().close()


class _Guard:
    def __init__(self):
        self.original = sys.stdout
        target = getattr(self.original, "buffer", None) if self.original is not None else None
        self.raw = _GuardedBuffer(target)
        encoding = getattr(self.original, "encoding", None) or "utf-8"
        self.stdout = io.TextIOWrapper(
            self.raw,
            encoding=encoding,
            errors="backslashreplace",
            line_buffering=bool(getattr(self.original, "line_buffering", False)),
            write_through=True,
        )

    def finish(self) -> None:
        """Flush what is left, down to the descriptor; raises the OutputError of any failure to
        write in this run (not for a closed pipe), even one a command caught.

        A buffered standard output (every shell without ``PYTHONUNBUFFERED``) only fails when it
        is flushed: this is that flush, while gdlcheck can still report it. After a closed pipe
        or a failure the descriptor is pointed at /dev/null, so the interpreter's own flush at
        exit has nothing to fail on (no 'Exception ignored', no exit 120)."""
        try:
            self.stdout.flush()
            if self.raw.error is not None:
                raise self.raw.error
        finally:
            if self.raw.stopped:
                _silence_stdout(self.original)

    def restore(self) -> None:
        sys.stdout = self.original
        with contextlib.suppress(Exception):
            self.stdout.detach()


def _silence_stdout(original) -> None:
    """After a closed pipe or a failed write, point the real descriptor at /dev/null (as
    Python's documentation advises for SIGPIPE): Python's own flush at exit must not print
    'Exception ignored ... BrokenPipeError' or '... OSError: [Errno 28]'."""
    try:
        fd = original.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)


@contextlib.contextmanager
def guarded_streams():
    """Guard standard output for one run of the command line (see the module's docstring)."""
    guard = _Guard()
    stderr = sys.stderr
    if stderr is not None and hasattr(stderr, "reconfigure"):
        with contextlib.suppress(Exception):
            stderr.reconfigure(errors="backslashreplace")
    sys.stdout = guard.stdout
    try:
        yield guard
    finally:
        guard.restore()


@contextlib.contextmanager
def code_writes_to_stderr():
    """While the user's code runs (``verify --callable``), what reaches descriptor 1 below Python
    (a C library's printf, ``os.write(1, ...)``, a child process) goes to standard error too:
    standard output carries gdlcheck's JSON, CSV or JUnit alone.  (Python's own ``print`` is
    sent there by the boundary around the code.)"""
    try:
        out, err = sys.stdout.fileno(), sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # not descriptors (a test's runner): nothing below Python
        yield
        return
    sys.stdout.flush()
    saved = os.dup(out)
    os.dup2(err, out)
    try:
        yield
    finally:
        os.dup2(saved, out)
        os.close(saved)


@contextlib.contextmanager
def quiet_warnings():
    """No Python warning and no library's log record reaches standard error while a command runs."""
    previous = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logging.disable(previous)
