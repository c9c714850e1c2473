"""The sentences of a weights file's scan (``verify model.safetensors``): why a tensor is not
judged, what a kernel's verdict leaves to the model, and how near a failing matrix is."""

from __future__ import annotations

from gdlcheck.output.words import NEAR_DISTANCE, distance_text
from gdlcheck.verdicts import Verdict


def tensor_note(checked) -> str | None:
    """Why a tensor of a weights file is not judged, or what a kernel's verdict leaves to the
    model (a :class:`~gdlcheck.verification.result.TensorChecked`); None when there is nothing to say."""
    from gdlcheck.verification.tensors import EVEN_KERNEL, KERNEL, KERNEL_GROUP, NO_SIZE, NOT_POINTS, OWN_N

    size = f"n = {checked.n}" if checked.n is not None else " x ".join(map(str, checked.shape)) or "a scalar"
    if checked.role == "matrix" and checked.verdict == Verdict.FAILS and 0 < (checked.distance or 0) < NEAR_DISTANCE:
        return (
            f"near miss: {distance_text(checked.distance)} from the nearest equivariant matrix; "
            f"{project_command(checked)} gives it"
        )
    if checked.why == OWN_N and checked.undecided:
        far = (
            ""
            if checked.distance is None
            else f" ({distance_text(checked.distance)} from the nearest equivariant matrix)"
        )
        return (
            f"does not commute with {checked.result.group.name} on its own {checked.n} points{far}; a map on the "
            f"points breaks the symmetry, a map on features need not: give -n {checked.n} to judge it as a map "
            "on the points, or check the model with --callable"
        )
    if checked.why == NOT_POINTS:
        return f"not on the points ({size}): check the model with --callable"
    if checked.why == NO_SIZE:
        return f"a vector ({size}): give the group's size (-n N) to check it as a bias on its points"
    if checked.why == EVEN_KERNEL:
        return "a kernel without a centre (even or unequal sides): check the model with --callable"
    if checked.why == KERNEL_GROUP:
        return f"not on the points ({size}, a kernel for another group): check the model with --callable"
    if checked.role == KERNEL and checked.kernel is not None and not checked.kernel.checks:
        return (
            "a convolution commutes with the shifts whatever its kernel when its padding is circular (Theorem 1); "
            "zero padding breaks it at the border: check the model with --callable"
        )
    return None


def project_command(checked) -> str:
    """The ``gdlcheck project`` command line that gives a weights file's tensor tied."""
    import shlex

    group = checked.result.group
    size = ["--shape", "x".join(map(str, group.shape))] if group.shape else ["-n", str(group.n)]
    return shlex.join(["gdlcheck", "project", checked.input, "--group", group.name, *size, "--tensor", checked.name])
