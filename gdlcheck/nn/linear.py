"""``EquivariantLinear``: the derived form of a group as a trainable torch layer."""

from __future__ import annotations

import math

import numpy as np
import torch

from gdlcheck.derivation import Derived, derive
from gdlcheck.errors import LayerError, param
from gdlcheck.groups import PermGroup
from gdlcheck.nn.paths import SetPartitionPlan, convolve, diagram_weights, taps


class EquivariantLinear(torch.nn.Module):
    """A linear layer whose weight is exactly the form a permutation group forces.

    ``y = W x + b`` with ``W`` constant on each orbit of ``group`` on index tuples
    (docs/design.md section 1): one parameter per orbit and channel pair, ``derive(group, in_order, out_order,
    in_channels, out_channels).free_parameters`` in all, and a bias constant on each orbit of the
    output's index tuples (one per output orbit and channel).  It is computed by the structure
    the derivation knows (:mod:`gdlcheck.nn.paths`: a convolution, the symmetric group's sums
    and diagonals, or the weight gathered from the orbit pattern), never through a dense basis.

    Parameters
    ----------
    group : a :class:`~gdlcheck.groups.PermGroup` (``gdlcheck.group(...)``) on ``n`` points.
    in_channels, out_channels : ``c`` and ``c'``.
    in_order, out_order : tensor orders ``k`` and ``l`` (0 to 4; the symmetric group's
        sums at orders up to 2, other orders gathered).
    bias : add a bias, one entry per orbit of the output's index tuples and channel.

    Shapes
    ------
    ``x : (*batch, (n,) * k, c)`` gives ``y : (*batch, (n,) * l, c')``; on a grid group's
    points an order-1 input may be given on the grid's axes, ``(*batch, H, W, c)``, and an
    order-1 output then has them too.

    Attributes
    ----------
    weight : ``(dimension, c', c)``, ``weight[k, o, c]`` the entry of orbit ``k`` (derive's
        numbering) from input channel ``c`` to output channel ``o``.
    bias : ``(output orbits, c')`` or None.
    path : ``"convolution"``, ``"deepsets"``, ``"set-partition"`` or ``"gathered"``.
    derived : the :class:`~gdlcheck.derivation.Derived` form.

    Initialisation: every entry of ``weight`` and ``bias`` is drawn from
    ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))`` with ``fan_in = n^k c``, as ``torch.nn.Linear`` draws a
    dense weight with that fan-in.  Each output entry is ``sum_k theta_k s_k`` with ``s_k`` the
    sum of the inputs in orbit ``k`` of its row; for independent inputs of unit variance
    ``Var(s_k)`` is the orbit's size in that row, and the sizes add up to ``fan_in``, so the
    output's variance is ``fan_in Var(theta)``: the dense layer's, though parameters are shared.
    """

    # registered with register_buffer / register_parameter, which give no type of their own
    bias: torch.nn.Parameter | None
    bias_pattern: torch.Tensor | None
    kernel: torch.Tensor
    diagrams: torch.Tensor
    pattern: torch.Tensor

    def __init__(
        self,
        group: PermGroup,
        in_channels: int,
        out_channels: int,
        in_order: int = 1,
        out_order: int = 1,
        bias: bool = True,
        *,
        device=None,
        dtype=None,
    ):
        super().__init__()
        if not isinstance(group, PermGroup):
            raise LayerError(f"group is a PermGroup (gdlcheck.group('cyclic', n=8)), got {type(group).__name__}")
        for label, value, low in (
            ("in_channels", in_channels, 1),
            ("out_channels", out_channels, 1),
            ("in_order", in_order, 0),
            ("out_order", out_order, 0),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise LayerError(f"{param(label)} must be an integer of at least {low}, got {value!r}")
        self.group = group
        self.n = group.n
        self.in_channels, self.out_channels = in_channels, out_channels
        self.in_order, self.out_order = in_order, out_order
        self.derived: Derived = derive(group, in_order, out_order, in_channels, out_channels)
        factory = {"device": device, "dtype": dtype}
        self.weight = torch.nn.Parameter(torch.empty(self.derived.dimension, out_channels, in_channels, **factory))
        self._choose_path()
        if bias:
            out_orbits = derive(group, 0, out_order).pattern.reshape(-1)
            count = int(out_orbits.max()) + 1
            self.bias = torch.nn.Parameter(torch.empty(count, out_channels, **factory))
            self.register_buffer(
                "bias_pattern", torch.tensor(out_orbits, dtype=torch.long) if count > 1 else None, persistent=False
            )
        else:
            self.register_parameter("bias", None)
            self.bias_pattern = None
        self.reset_parameters()

    def _choose_path(self) -> None:
        """The computation by the form's structure; its buffers come from the group, so they stay out
        of ``state_dict`` (a checkpoint holds the parameters alone)."""
        d = self.derived
        kernel = d.convolution_kernel() if (self.in_order, self.out_order) == (1, 1) else None
        if kernel is not None and kernel.ndim <= 3:
            self.path = "convolution"
            self.grid = tuple(kernel.shape)  # the convolution's grid (the kernel has its shape)
            self.register_buffer("kernel", torch.tensor(taps(kernel), dtype=torch.long), persistent=False)
        elif d.blocks is not None and (self.in_order, self.out_order) == (1, 1) and d.dimension == 2:
            self.path = "deepsets"  # alpha*I + beta*11^T: weight[0] on the diagonal, weight[1] off it
            self._deepsets_shape = (self.n, self.in_channels)
        elif d.blocks is not None and self.in_order <= 2 and self.out_order <= 2:
            self.path = "set-partition"
            self.plan = SetPartitionPlan(d.blocks, self.in_order, self.out_order)
            self.register_buffer(
                "diagrams", torch.as_tensor(diagram_weights(d.blocks), dtype=self.weight.dtype), persistent=False
            )
        else:
            self.path = "gathered"
            rows, cols = self.n**self.out_order, self.n**self.in_order
            self.register_buffer(
                "pattern", torch.tensor(d.pattern.reshape(rows, cols), dtype=torch.long), persistent=False
            )

    def reset_parameters(self) -> None:
        """Draw ``weight`` and ``bias`` from ``U(-1/sqrt(fan_in), 1/sqrt(fan_in))``, ``fan_in = n^k c``."""
        bound = 1.0 / math.sqrt(self.n**self.in_order * self.in_channels)
        torch.nn.init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            torch.nn.init.uniform_(self.bias, -bound, bound)

    # ------------------------------------------------------------------------------ forward

    def _points_of(self, x: torch.Tensor) -> tuple[torch.Tensor, tuple[int, ...], bool]:
        """``x`` as ``(*batch, (n,) * k, c)``, the batch shape, and whether it came on the grid's axes."""
        k, n, c = self.in_order, self.n, self.in_channels
        grid = self.group.shape
        if (
            k == 1
            and grid is not None
            and len(grid) > 1
            and x.dim() >= len(grid) + 1
            and tuple(x.shape[-1 - len(grid) : -1]) == tuple(grid)
            and x.shape[-1] == c
        ):
            batch = tuple(x.shape[: -1 - len(grid)])
            return x.reshape(batch + (n, c)), batch, True
        if x.dim() < k + 1 or tuple(x.shape[x.dim() - 1 - k :]) != (n,) * k + (c,):
            expected = ", ".join(["*batch"] + [str(n)] * k + [str(c)])
            raise LayerError(f"EquivariantLinear expects an input of shape ({expected}), got {tuple(x.shape)}")
        return x, tuple(x.shape[: x.dim() - 1 - k]), False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.path == "deepsets" and x.shape[-2:] == self._deepsets_shape:  # the common case, checked first
            return self._deepsets(x)
        x, batch, on_grid = self._points_of(x)
        n, l, k = self.n, self.out_order, self.in_order
        if self.path == "convolution":
            y = convolve(x.reshape(batch + self.grid + (self.in_channels,)), self.weight[self.kernel], self.grid)
            y = y.reshape(batch + (n, self.out_channels))
        elif self.path == "deepsets":
            return self._deepsets(x)
        elif self.path == "set-partition":
            dim = self.weight.shape[0]
            phi = (self.diagrams.to(self.weight.dtype) @ self.weight.reshape(dim, -1)).reshape(self.weight.shape)
            y = self.plan.apply(x, phi, n)
        else:
            W = self.weight[self.pattern]  # (n^l, n^k, c', c)
            flat = x.reshape(batch + (n**k, self.in_channels))
            y = torch.einsum("...jc,ijoc->...io", flat, W).reshape(batch + (n,) * l + (self.out_channels,))
        if self.bias is not None:
            # one orbit: one entry per channel, broadcast; else the orbit's entry at each output cell
            if self.bias_pattern is None:
                y = y + self.bias[0]
            else:
                y = y + self.bias[self.bias_pattern].reshape((n,) * l + (self.out_channels,))
        grid = self.group.shape
        if on_grid and l == 1 and grid is not None:  # on_grid: the group has a grid
            y = y.reshape(batch + tuple(grid) + (self.out_channels,))
        return y

    def _deepsets(self, x: torch.Tensor) -> torch.Tensor:
        """``y = x A^T + s`` with ``A = w0 - w1`` and the shift ``s = (sum_j x_j) w1^T + b``, one row per set.

        One pass over ``x`` for the sum, then one product that reads ``x`` again and writes ``y``
        with the shift added inside it (``addmv``, ``addmm``; ``baddbmm`` with a batch): no other
        array of ``n`` rows is made.  With a batch and one input channel a product of inner size 1
        is slower than a broadcast product and an add in place, which run instead.  ``O(n c c')``
        time.
        """
        w0, w1 = self.weight.unbind(0)
        bias = self.bias
        a = w0 - w1  # (c', c): the diagonal's coefficient less the off-diagonal's
        if x.dim() == 2:
            pooled = x.sum(0)  # (c,)
            shift = torch.mv(w1, pooled) if bias is None else torch.addmv(bias[0], w1, pooled)
            if self.out_channels == 1:  # a matrix-vector product: a matmul of one column is slow
                return torch.addmv(shift, x, a[0]).unsqueeze(-1)
            return torch.addmm(shift, x, a.T)
        pooled = x.sum(-2, keepdim=True)  # (*batch, 1, c)
        if self.in_channels == 1:
            shift = pooled * w1.T if bias is None else torch.addcmul(bias, pooled, w1.T)
            return (x * a.T).add_(shift)
        shift = pooled @ w1.T if bias is None else pooled @ w1.T + bias
        flat = x.reshape((-1,) + x.shape[-2:])  # (B, n, c): a view when the batch axes merge
        y = torch.baddbmm(shift.reshape(len(flat), 1, self.out_channels), flat, a.T.expand(len(flat), -1, -1))
        return y.reshape(x.shape[:-1] + (self.out_channels,))

    # ------------------------------------------------------------------------------ dense forms

    def to_matrix(self) -> torch.Tensor:
        """The dense weight ``M : (n^l c', n^k c)``: ``y.reshape(*batch, -1) = x.reshape(*batch, -1) @ M.T + b``,
        rows and columns ordered as the flattened output and input (points row-major, then channels).

        ``M[(i, o), (j, c)] = weight[pattern[i, j], o, c]``: built from the pattern (within the
        derivation's budget), for checks and pictures.
        """
        rows, cols = self.n**self.out_order, self.n**self.in_order
        pattern = torch.tensor(self.derived.pattern.reshape(rows, cols), dtype=torch.long, device=self.weight.device)
        W = self.weight.detach()[pattern]  # (rows, cols, c', c)
        return W.permute(0, 2, 1, 3).reshape(rows * self.out_channels, cols * self.in_channels)

    @classmethod
    def from_matrix(
        cls,
        group: PermGroup,
        matrix,
        in_channels: int = 1,
        out_channels: int = 1,
        in_order: int = 1,
        out_order: int = 1,
        bias=None,
    ) -> EquivariantLinear:
        """The layer nearest a dense weight: each entry the mean of its orbit, per channel pair.

        The orbit means are the orthogonal projection onto the equivariant maps
        (:func:`gdlcheck.project`); an equivariant matrix comes back unchanged.

        Parameters
        ----------
        matrix : ``(n^l c', n^k c)`` (as :meth:`to_matrix`, or ``torch.nn.Linear.weight`` on the
            flattened points and channels).
        bias : None (no bias), or ``(n^l c',)``: the mean of each output orbit, per channel.
        """
        layer = cls(group, in_channels, out_channels, in_order, out_order, bias=bias is not None)
        n = group.n
        rows, cols = n**out_order, n**in_order
        M = _as_numpy(matrix)
        if M.shape != (rows * out_channels, cols * in_channels):
            raise LayerError(
                f"matrix is {'x'.join(map(str, M.shape))}, expected {rows * out_channels}x"
                f"{cols * in_channels} (n^{out_order} * out_channels by n^{in_order} * in_channels)"
            )
        cells = M.reshape(rows, out_channels, cols, in_channels).transpose(0, 2, 1, 3)
        cells = cells.reshape((n,) * (out_order + in_order) + (out_channels, in_channels))
        with torch.no_grad():
            layer.weight.copy_(torch.as_tensor(layer.derived.orbit_means(cells)))
            if bias is not None and layer.bias is not None:  # the layer has a bias when one is given
                b = _as_numpy(bias)
                if b.shape != (rows * out_channels,):
                    raise LayerError(f"bias has shape {b.shape}, expected ({rows * out_channels},)")
                orbits = derive(group, 0, out_order)
                layer.bias.copy_(torch.as_tensor(orbits.orbit_means(b.reshape((n,) * out_order + (out_channels,)))))
        return layer

    def extra_repr(self) -> str:
        return (
            f"{self.group.describe()}, in_channels={self.in_channels}, out_channels={self.out_channels}, "
            f"in_order={self.in_order}, out_order={self.out_order}, bias={self.bias is not None}, "
            f"path={self.path!r}, parameters={self.derived.free_parameters}"
        )


def _as_numpy(value) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        value = value.detach().cpu().numpy()
    return np.asarray(value, dtype=float)
