"""Every tolerance gdlcheck uses, in one table.

``DEFAULT_TOL`` is ``--tol``'s default by the dtype a layer runs in: float64 rounding is
about 1e-16 per operation, so 1e-9 leaves room for long compositions and still catches any
real symmetry break; float32 carries ~6e-8 per operation, and a layer that holds exactly
still deviates by a few ulps after a dozen of them.
"""

DEFAULT_TOL = {"float64": 1e-9, "float32": 1e-5}
TOL = DEFAULT_TOL["float64"]       # --tol of verify and symmetries

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

# trials of a generator proved exactly that differ by at most this much (absolute; the trial
# inputs are standard normal) measured rounding; a larger difference contradicts the proof
ROUNDING_ABS = 1e-9
# the same for code run in float32 (eps 1.2e-7, summed over a layer's terms)
ROUNDING_ABS_FLOAT32 = 1e-4
