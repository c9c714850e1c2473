"""The boundary around the user's code: importing it, building it, calling it.

Whatever the code does, gdlcheck's exit status and its machine-readable output stay gdlcheck's:

* an exception the code raises is the user's error, described as one line that names the
  user's file and line (:func:`describe`); that includes what is not an ``Exception`` --
  ``SystemExit`` (``sys.exit(0)`` must not read as "holds"), ``GeneratorExit``,
  ``KeyboardInterrupt`` raised by the code and any other ``BaseException`` subclass -- which
  :func:`running_code` turns into a :class:`~gdlcheck.errors.CallableError`;
* a real Ctrl-C stays an interrupt: while the boundary is open, SIGINT raises from a handler
  of gdlcheck's, so it is told apart from a ``raise KeyboardInterrupt`` in the code; gdlcheck's
  own stops (its budgets, a caller's timer) pass through untouched;
* what the code prints goes to standard error, never to the standard output that carries
  JSON, CSV or JUnit;
* a standard stream the code closes or replaces is put back, and is an error too.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import signal
import sys
import sysconfig
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, TextIO

from gdlcheck.errors import CallableError

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_LIBRARIES = tuple(
    sorted(
        {
            os.path.abspath(path) + os.sep
            for name in ("stdlib", "platstdlib", "purelib", "platlib")
            if (path := sysconfig.get_paths().get(name))
        }
    )
)
_STREAMS = ("stdout", "stderr")
SHOWN_LINES = 20  # of what the code prints, per stream (it may print in every trial)


# --------------------------------------------------------------------------- whose code


def _is_ours(filename: str) -> bool:
    return os.path.abspath(filename).startswith(_PACKAGE)


def _is_library(filename: str) -> bool:
    return filename.startswith("<frozen") or os.path.abspath(filename).startswith(_LIBRARIES)


def _traceback_frames(err: BaseException) -> list:
    """The frames ``err`` passed through, innermost first."""
    frames = []
    tb = err.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame, tb.tb_lineno))
        tb = tb.tb_next
    return frames[::-1]


def _shown_path(filename: str) -> str:
    path = os.path.abspath(filename)
    with contextlib.suppress(ValueError):
        relative = os.path.relpath(path)
        if not relative.startswith(os.pardir):
            return relative
    return path


def user_line(frames) -> str | None:
    """``"mylayers.py:12"``: the innermost of ``frames`` (``(frame, line)`` pairs, innermost
    first) in the user's own code -- not gdlcheck's, not the standard library's or an installed
    package's (torch, numpy); None if there is none (``torch.nn.Linear`` called directly)."""
    for f, line in frames:
        name = f.f_code.co_filename
        if not _is_ours(name) and not _is_library(name):
            return f"{_shown_path(name)}:{line}"
    return None


def _handlers_code() -> set:
    """The code objects of the Python signal handlers installed now."""
    codes = set()
    for name in ("SIGINT", "SIGALRM", "SIGTERM", "SIGVTALRM", "SIGPROF", "SIGUSR1", "SIGUSR2"):
        number = getattr(signal, name, None)
        handler = signal.getsignal(number) if number is not None else None
        code = getattr(handler, "__code__", None)
        if code is not None:
            codes.add(code)
    return codes


def raised_by_code(err: BaseException) -> bool:
    """Is ``err``, caught around a call of the code under check, the code's?  An ``Exception``
    is (what the call raises); another ``BaseException`` is unless gdlcheck or a signal handler
    raised it (gdlcheck's budgets, a caller's timer, a real Ctrl-C)."""
    if isinstance(err, Exception):
        return True
    if type(err).__module__.split(".")[0] == "gdlcheck":
        return False
    frames = _traceback_frames(err)
    if not frames:
        return True
    innermost = frames[0][0]
    return not _is_ours(innermost.f_code.co_filename) and innermost.f_code not in _handlers_code()


def describe(err: BaseException) -> str:
    """``"ValueError: bad shape at mylayers.py:12"``: the exception's type, its message's first
    line and where in the user's code it was raised."""
    text = str(err).strip().splitlines()
    where = user_line(_traceback_frames(err))
    return f"{type(err).__name__}{': ' + text[0] if text else ''}{' at ' + where if where else ''}"


def _advice(err: BaseException) -> str:
    if isinstance(err, SystemExit):
        return "code under check must return its output, not exit: remove the exit"
    if isinstance(err, KeyboardInterrupt):
        return "the code raised it (it was not a Ctrl-C)"
    return "raise an Exception: a BaseException stops any program that runs the code"


# --------------------------------------------------------------------------- the streams


class _Stream:
    """The code's ``sys.stdout`` or ``sys.stderr`` while it runs: writes go to standard error (the
    first :data:`SHOWN_LINES` lines; the rest is dropped, and counted), ``close()`` is remembered
    (with the user's line) instead of closing gdlcheck's stream."""

    def __init__(self, name: str, target):
        self.name = f"<{name}>"
        self._target = target
        self.closed_at: str | None = None
        self.lines = 0

    @property
    def closed(self) -> bool:
        return self.closed_at is not None

    def write(self, text) -> int:
        shown = self.lines < SHOWN_LINES
        self.lines += str(text).count("\n")
        if shown and self._target is not None and self.closed_at is None:
            with contextlib.suppress(Exception):
                self._target.write(text)
        return len(text)

    def dropped_note(self) -> None:
        """One line on what was not shown (the code printed in every trial)."""
        if self.lines > SHOWN_LINES and self._target is not None:
            with contextlib.suppress(Exception):
                self._target.write(
                    f"gdlcheck: the code printed {self.lines - SHOWN_LINES} more lines on "
                    f"{self.name[1:-1]}, not shown\n"
                )

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self._target is not None:
            with contextlib.suppress(Exception):
                self._target.flush()

    def close(self) -> None:
        frame: FrameType | None = sys._getframe(1)
        frames = []
        while frame is not None:
            frames.append((frame, frame.f_lineno))
            frame = frame.f_back
        self.closed_at = self.closed_at or user_line(frames) or "an unknown line"

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def isatty(self) -> bool:
        return False

    def __getattr__(self, name):  # encoding, errors, buffer, fileno, ...: standard error's
        if name.startswith("__") or "_target" not in vars(self):
            raise AttributeError(name)
        return getattr(self._target, name)


_lock = threading.Lock()


class _Open:
    """The boundaries open now (nested calls share one): how deep, the streams put aside and the
    boundary's own, and the SIGINT handler to put back."""

    depth = 0
    saved: tuple[TextIO, TextIO] = (sys.stdout, sys.stderr)
    streams: tuple[_Stream, _Stream] | None = None
    sigint: signal.Handlers | Callable[[int, FrameType | None], Any] | int | None = None


_open = _Open()


def _interrupt(signum, frame):
    """SIGINT while the code runs: a real Ctrl-C, raised from here so that it is not the code's."""
    raise KeyboardInterrupt


def _enter() -> None:
    with _lock:
        _open.depth += 1
        if _open.depth > 1:
            return
        target = sys.stderr
        _open.saved = (sys.stdout, sys.stderr)
        _open.streams = (_Stream("stdout", target), _Stream("stderr", target))
        sys.stdout, sys.stderr = _open.streams
        _open.sigint = None
        if (
            threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        ):
            _open.sigint = signal.signal(signal.SIGINT, _interrupt)


def _leave() -> list[str]:
    """Close the boundary (the last one out puts the streams back); the problems with them."""
    with _lock:
        _open.depth -= 1
        if _open.depth > 0:
            return []
        problems = []
        streams = _open.streams
        assert streams is not None, "a boundary is left that was not entered"
        for name, mine, current in zip(_STREAMS, streams, (sys.stdout, sys.stderr)):
            if current is not mine:
                problems.append(
                    f"replaced sys.{name} (gdlcheck put it back); code under check must leave the "
                    "standard streams alone"
                )
            elif mine.closed_at is not None:
                problems.append(
                    f"closed sys.{name} at {mine.closed_at} (gdlcheck put it back); code under check "
                    "must leave the standard streams open"
                )
        sys.stdout, sys.stderr = _open.saved
        for mine in streams:
            mine.dropped_note()
        if _open.sigint is not None:
            signal.signal(signal.SIGINT, _open.sigint)
        return problems


class Run:
    """One open boundary: ``subject`` is the callable once it is built, which names the place
    where a stream was replaced (no line says where that happened)."""

    def __init__(self):
        self.subject = None


@contextlib.contextmanager
def running_code(label: str):
    """Run the user's code (``label`` names it in messages): see the module's docstring.
    Yields a :class:`Run`.  Boundaries nest: the outermost one puts the streams back.

    Raises
    ------
    CallableError
        for a ``BaseException`` that is not an ``Exception`` raised by the code, and for a
        standard stream it closed or replaced.
    """
    run = Run()
    _enter()
    try:
        yield run
    except BaseException as err:
        problems = _leave()
        users = raised_by_code(err)
        if problems and users:
            raise CallableError(_stream_message(problems, run.subject), file=label) from err
        if isinstance(err, Exception) or not users:
            raise
        raise CallableError(f"raised {describe(err)}; {_advice(err)}", file=label) from err
    problems = _leave()
    if problems:
        raise CallableError(_stream_message(problems, run.subject), file=label)


def _stream_message(problems: list[str], subject) -> str:
    where = defined_at(subject) if subject is not None else None
    first = problems[0]
    if first.startswith("replaced") and where:
        first = first.replace(" (gdlcheck", f" in the code defined at {where} (gdlcheck", 1)
    return "the code " + first


def defined_at(f) -> str | None:
    """``"mylayers.py:5"``: where the function, or a module's ``forward`` or an object's
    ``__call__``, is defined; None when it cannot be found."""
    target = f
    if not (inspect.isfunction(f) or inspect.ismethod(f)):
        target = getattr(type(f), "forward", None) or vars(type(f)).get("__call__")
    target = inspect.unwrap(target) if target is not None else None
    code = getattr(target, "__code__", None)
    if code is None or _is_ours(code.co_filename):
        return None
    return f"{_shown_path(code.co_filename)}:{code.co_firstlineno}"
