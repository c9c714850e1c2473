"""Where the walk keeps what it knows of each tensor, and how it finds tensors in a call.

:class:`Values` maps a tensor to its abstract value without keeping it alive; ``_tensors``
finds the tensors in an operation's arguments and outputs; :func:`user_line` names the user's
line that made a call (for "the code asks for a value at file:line").
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Values:
    """Tensor -> Abstract, holding the tensors weakly (a call's intermediates are freed as they
    would be) and cheaply: by ``id`` with a weak reference that tells a reused id from its tensor."""

    def __init__(self):
        self._d: dict = {}

    def get(self, tensor, default=None):
        found = self._d.get(id(tensor))
        if found is None or found[0]() is not tensor:
            return default
        return found[1]

    def __setitem__(self, tensor, value) -> None:
        import weakref

        self._d[id(tensor)] = (weakref.ref(tensor), value)

    def items(self):
        for ref, value in list(self._d.values()):
            t = ref()
            if t is not None:
                yield t, value


def _tensors(obj, depth: int = 0):
    import torch

    if isinstance(obj, torch.Tensor):
        yield obj
    elif depth < 4 and isinstance(obj, (list, tuple)):
        for o in obj:
            yield from _tensors(o, depth + 1)
    elif depth < 4 and isinstance(obj, dict):
        for o in obj.values():
            yield from _tensors(o, depth + 1)


def _op_text(func) -> str:
    """The operation for a person (display only: no rule is found by this text)."""
    return str(func)


def user_line() -> str:
    """``file:line`` of the innermost frame outside torch and gdlcheck: the code that asked."""
    import torch

    torch_dir = os.path.dirname(os.path.abspath(torch.__file__))
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(torch_dir) and not path.startswith(_HERE):
            return f"{os.path.basename(path)}:{frame.f_lineno}"
        frame = frame.f_back
    return "an unknown place"
