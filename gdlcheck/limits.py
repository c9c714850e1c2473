"""Size budgets. A request past one is refused at once with a message that states it."""

MAX_POINTS = 1_000_000          # n, the number of points of a group
MAX_FILE_BYTES = 256 * 2**20     # a matrix or spec file
MAX_MATRIX_ENTRIES = 64 * 2**20  # entries of one matrix (8192^2 is 2^26)
MAX_SYMBOLIC_ENTRIES = 64 * 64 * 16  # symbolic matrices are compared entry by entry in Python
MAX_EXPR_CHARS = 2000            # one expression string
MAX_EXPR_DEPTH = 50              # nesting of one expression
MAX_POW_DIGITS = 10_000          # digits of a number an expression may build with **
MAX_SYMBOLIC_POWER = 64          # exponent of a symbolic base, as in (a + b)**k
MAX_CELLS = 64 * 2**20           # index tuples n^(k+l) a derivation may label (int32: 256 MiB)
MAX_YAML_DEPTH = 64              # nesting of a spec document
MAX_YAML_NODES = 2_000_000       # nodes of a spec document, aliases expanded
SYMBOLIC_SECONDS = 5.0           # wall-clock guard behind the symbolic budget, for one whole check
MAX_SIMPLIFY_OPS = 4000          # operations of the differences one check hands to sympy's simplify
MAX_EXPANSION_TERMS = 20_000     # terms one polynomial expansion of a difference may build (estimated first)
MAX_ORDER_DIGITS = 100_000       # digits of a group order written out exactly (n! up to n of about 25,000)
MAX_ENCODER_BLOCKS = 64          # blocks of one transformer_encoder (each trial runs every block)
MAX_LAYERS = 1000                # layers in one spec, sequentials and residuals counted
MAX_VALUE_BITS = 1 << 16         # binary exponent of any value an expression evaluates to (about 10^19728)
MAX_TRIG_BITS = 1 << 12          # integer bits of a sin/cos/tan argument (evaluated with that many more)
MAX_SCHREIER_SIMS_POINTS = 64     # degree up to which a generated group's order is computed by Schreier-Sims
