"""Size budgets. A request past one is refused at once with a message that states it."""

MAX_POINTS = 1_000_000  # n, the number of points of a group
MAX_FILE_BYTES = 256 * 2**20  # a matrix or spec file
MAX_MATRIX_ENTRIES = 64 * 2**20  # entries of one matrix (8192^2 is 2^26)
MAX_SYMBOLIC_ENTRIES = 64 * 64 * 16  # symbolic matrices are compared entry by entry in Python
MAX_EXPR_CHARS = 2000  # one expression string
MAX_EXPR_DEPTH = 50  # nesting of one expression
MAX_POW_DIGITS = 10_000  # digits of a number an expression may build with **
MAX_SYMBOLIC_POWER = 64  # exponent of a symbolic base, as in (a + b)**k
MAX_CELLS = 64 * 2**20  # index tuples n^(k+l) a derivation may label (int32: 256 MiB)
MAX_YAML_DEPTH = 64  # nesting of a spec document
MAX_YAML_NODES = 250_000  # nodes of a spec document, aliases expanded (libyaml composes ~250k/s)
SYMBOLIC_NODES = 2_000_000  # expression nodes the symbolic forward pass may build (estimated first)
SYMBOLIC_EXPAND_OPS = 5_000  # operations of an expression difference expanded to show it is zero
SOLVE_OPS = 2_000  # operations of the equations sympy.solve may be given
SOLVE_DEGREE = 2  # total degree of the polynomial equations sympy.solve may be given
SOLVE_QUADRATIC_SYMBOLS = 3  # symbols of a system of degree 2 sympy.solve may be given (linear: any)
SOLVE_NUMBER_BITS = 128  # bits of a number (numerator or denominator) in the equations sympy.solve is given
MAX_SIMPLIFY_OPS = 4000  # operations of the differences one check hands to sympy's simplify
SIMPLIFY_OPS_EACH = 200  # operations of one difference handed to trigsimp and simplify
SIMPLIFY_FUNCTIONS_EACH = 4  # function applications (sin, exp, sqrt, ...) of one difference handed to them
MAX_EXP_DEGREE = 256  # degree exp(k*t) = exp(t)**k gives the polynomials sympy's cancel builds
MAX_EXPANSION_TERMS = 20_000  # terms one polynomial expansion of a difference may build (estimated first)
MAX_ORDER_DIGITS = 100_000  # digits of a group order written out exactly (n! up to n of about 25,000)
MAX_ENCODER_BLOCKS = 64  # blocks of one transformer_encoder (each trial runs every block)
MAX_LAYERS = 1000  # layers in one spec, sequentials and residuals counted
MAX_VALUE_BITS = 1 << 16  # binary exponent of any value an expression evaluates to (about 10^19728)
MAX_TRIG_BITS = 1 << 12  # integer bits of a sin/cos/tan argument (evaluated with that many more)
MAX_SCHREIER_SIMS_POINTS = 64  # degree up to which a generated group's order is computed by Schreier-Sims
MAX_SPEC_ENTRIES = 2 * MAX_MATRIX_ENTRIES  # entries of all the weights of one spec, n x n layers expanded (1 GiB)
MAX_PRODUCT_OPS = 1 << 37  # multiply-adds composing a sequence's n x n matrices (4096^3 is 2^36)
MAX_SYMBOLIC_PRODUCT_OPS = 1 << 18  # the same for symbolic matrices (each one a sympy operation)
MAX_TRIAL_OPS = 1 << 34  # multiply-adds of the numeric check: trials x (generators + 1) x forward pass
# (memory-bound with one channel: 2^34 is about 10-20 s of W X on 2 cores)
TRIAL_PASS_OPS = 1 << 16  # what one layer's forward pass costs besides its arithmetic (numpy calls)
MAX_JSON_CELLS = 1 << 22  # matrix or pattern cells one JSON object writes out (2048^2; ~40 MiB of text)
MAX_JSON_PATTERN_CELLS = 1 << 24  # the same for derive's pattern alone (orders other than 1 -> 1, no names matrix):
# written row by row from the array, 64^4 cells (2 -> 2 on 64 points) fit
MAX_CSV_CELLS = 1 << 24  # cells one CSV output writes (4096^2); npy has the pattern and basis budgets
MAX_TEXT_ROWS = 1 << 16  # rows of a text matrix (a Python string each; a square matrix has 8192)
MAX_JSON_DEPTH = 32  # nesting of a JSON matrix (checked before parsing)
MAX_CONDITION_ENTRIES = 1 << 30  # pairs (i, j) one side condition may compare without a shortcut (in blocks)
MAX_GRAPH_BYTES = 512 * 2**20  # bytes of a graph .npz's members, decompressed (a zip bomb stops there)
MAX_NPY_HEADER = 10_000  # bytes of a .npy header (numpy's own default)
MAX_YAML_BYTES = 8 * 2**20  # characters of a spec document (weights past it belong in {file: ...})
MAX_LAYERED_EDGES = 1 << 23  # edges of the layered graph handed to BLISS (symmetries, automorphisms)
