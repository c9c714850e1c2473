"""Every tolerance gdlcheck uses, in one table.

``DEFAULT_TOL`` is ``--tol``'s default by the dtype a layer runs in: float64 rounding is
about 1e-16 per operation, so 1e-9 leaves room for long compositions and still catches any
real symmetry break; float32 carries ~6e-8 per operation, and a layer that holds exactly
still deviates by a few ulps after a dozen of them.
"""

DEFAULT_TOL = {"float64": 1e-9, "float32": 1e-5}
TOL = DEFAULT_TOL["float64"]  # --tol of verify and symmetries

# inspect: two aggregation matrices are "the same" (static, symmetric) within this, relative
SAME_TOL = 1e-12
# inspect: an entry below this fraction of the largest counts as zero ("approximately sparse")
APPROX_SPARSE_RATIO = 1e-3
# inspect: rows summing to one within this (absolute) are row-stochastic
ROW_SUM_TOL = 1e-9
# inspect: Wq Wk^T counts as symmetric within this, relative to max(1, its largest entry)
SCORE_SYMMETRY_TOL = 1e-12
# symbolic comparison: two values at a random point differ when |a - b| > this * max(|a|, |b|)
POINT_DIFFERENCE = 1e-15
# code checked in float64 whose relative error lies in this range looks like float32 rounding
# inside it (a .float() cast): the report hints --dtype float32
FLOAT32_LEVEL = (1e-9, 1e-5)
# numeric trials: differences of at most this many subnormal steps (2^-1074) per term of an
# output entry (n + d terms) are float64 rounding, not a symmetry break; this matters only
# for outputs in the subnormal range (below 2.2e-308), where float64 keeps few digits
SUBNORMAL_ULPS = 4

# trials of a generator proved exactly that differ by at most this many ulps of the largest
# magnitude on the way (the inputs, the outputs, a module's parameters and buffers), in the dtype
# the trials run in, measured rounding; a larger difference contradicts the proof. Relative, not
# absolute: 1 ulp of a bias of 1e7 is 1.9e-9, and an exact 0 computed through it is that far off
ROUNDING_ULPS = 64
# that bound per unit of magnitude, by dtype (eps is 2^-52 in float64, 2^-23 in float32)
ROUNDING = {"float64": ROUNDING_ULPS * 2.0**-52, "float32": ROUNDING_ULPS * 2.0**-23}
