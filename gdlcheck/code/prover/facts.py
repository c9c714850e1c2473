"""What an operation overload is, by its schema and tags alone: the same at every call of it.

The guards (:mod:`gdlcheck.code.prover.guards`) ask these once per overload to know which of them
can do anything for it (``Guard.applies``); each answer is read off the overload, never off the
values it is called with.
"""

from __future__ import annotations

from gdlcheck.code.prover.table import _HIDDEN_WRITES, _INDEXED, _SELECTING, _arguments


def tagged(func, tag: str) -> bool:
    """torch tags the overload ``tag`` (``torch.Tag.<tag>``)."""
    import torch

    return getattr(torch.Tag, tag) in getattr(func, "tags", ())


def may_write(func) -> bool:
    """Whether the operation can write any argument, whatever it is called with: its schema writes
    one, or it writes one its schema does not say (:func:`~gdlcheck.code.prover.table.writes`)."""
    return any(written for *_, written in _arguments(func)) or func in _HIDDEN_WRITES


def selects(func) -> bool:
    """A selection or an indexing operation, or one whose output's shape torch tags as depending on
    the values: the only ones whose shape or index :mod:`~gdlcheck.code.prover.effects` looks at."""
    return (
        func in _SELECTING
        or func in _INDEXED
        or tagged(func, "data_dependent_output")
        or tagged(func, "dynamic_output_shape")
    )


def no_dropout(func, bound: dict) -> bool:
    """An operation torch tags random only for its dropout (attention kernels) draws nothing when
    its dropout probability is 0; a dropout outside training (``train=False``) draws nothing."""
    names = bound  # every argument of the schema, by name
    if func.overloadpacket in _DROPOUTS and "train" in names:  # dropout kept whole (inference mode)
        return bound.get("train") is False
    if "dropout_p" not in names:
        return False
    return not bound.get("dropout_p")


def _dropouts():
    import torch

    aten = torch.ops.aten
    return frozenset({aten.dropout, aten.feature_dropout, aten.alpha_dropout, aten.feature_alpha_dropout})


_DROPOUTS = _dropouts()


def _below_float64():
    import torch

    return frozenset(
        t for t in vars(torch).values() if isinstance(t, torch.dtype) and t.is_floating_point and t.itemsize < 8
    ) | frozenset({torch.complex64, torch.complex32})


BELOW_FLOAT64 = _below_float64()
