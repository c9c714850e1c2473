"""The rules of the table, by kind of operation; importing this package registers them all.

* :mod:`~gdlcheck.code.prover.rules.elementwise`: operations tagged ``pointwise`` (one rule, with
  broadcasting) and comparisons of node labels;
* :mod:`~gdlcheck.code.prover.rules.layout`: views, reshapes, transposes, slices, ``cat``, copies;
* :mod:`~gdlcheck.code.prover.rules.linalg`: products (contractions), softmax, norms, convolutions;
* :mod:`~gdlcheck.code.prover.rules.operators`: the law a stored matrix on the points keeps in a product;
* :mod:`~gdlcheck.code.prover.rules.stacking`: ``stack``, ``repeat``, ``roll`` and the safe softmax;
* :mod:`~gdlcheck.code.prover.rules.units_more`: kernels of everyday modules (``GroupNorm``, ``Bilinear``,
  ``Hardswish``, ``LogSigmoid``) and ``transpose_``;
* :mod:`~gdlcheck.code.prover.rules.reduce`: reductions, sorts and cumulative sums;
* :mod:`~gdlcheck.code.prover.rules.index`: gathers by labels and scatters into nodes (message passing);
* :mod:`~gdlcheck.code.prover.rules.reindex`: ``flip``, ``gather`` and one-hot codes (``scatter`` of a value);
* :mod:`~gdlcheck.code.prover.rules.puts`: writes at indices (``index_put``, ``index_copy``) and
  ``unsafe_split``;
* :mod:`~gdlcheck.code.prover.rules.attention`: attention kernels (Theorem 4) and the encoder layer;
* :mod:`~gdlcheck.code.prover.rules.grid`: moves that swap axes (a grid's rotations and mirrors) and
  ``rot90``; :mod:`~gdlcheck.code.prover.rules.grid_conv` the kernel condition of a circular convolution
  under them; :mod:`~gdlcheck.code.prover.rules.grid_more` ``cat``, ``stack``, slices, splits and norms
  along an axis they keep in place;
* :mod:`~gdlcheck.code.prover.rules.units`: ``torch.nn`` classes proved whole (circular convolutions);
* :mod:`~gdlcheck.code.prover.rules.pad`: ``F.pad`` in circular mode, proved whole, and the convolution
  that reads what it padded (a circular convolution written by hand);
* :mod:`~gdlcheck.code.prover.rules.pairs`: values on pairs of points (``diagonal``);
* :mod:`~gdlcheck.code.prover.rules.offsets`: node labels offset by zero (one node type of a heterogeneous graph).
"""

from gdlcheck.code.prover.rules import (  # noqa: F401
    attention,
    elementwise,
    grid,
    grid_more,
    index,
    layout,
    linalg,
    offsets,
    operators,
    pad,
    pairs,
    puts,
    reduce,
    reindex,
    stacking,
    units,
    units_more,
)
