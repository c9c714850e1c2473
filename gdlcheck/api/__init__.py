"""The Python API: the same catalogue, checks and errors as the command line, which calls it.

Re-exported from the package on first use::

    import gdlcheck

    g = gdlcheck.group("cyclic", n=6)
    d = gdlcheck.derive(g)                     # d.dimension == 6, d.form == "circulant"
    r = gdlcheck.verify("samples/conv.yaml")   # r.passed, r.verdict, r.checks, r.to_json()
    r = gdlcheck.verify_callable(lambda X: X - X.mean(axis=0), g, shape=(6, 2))

Conventions (docs/design.md section 1): points are ``0 .. n-1``; a permutation ``s`` acts on
an array by moving the entry at ``j`` to ``s[j]`` (``P[s[j], j] = 1``); the unit shift is
``j -> j + 1 mod n``.

Every function raises :class:`gdlcheck.errors.GdlcheckError` (or a subclass) for a
user's mistake, naming its parameters as Python spells them, and never prints or exits.  A
layer that does not hold the symmetry is a result (``passed`` is False), not an exception.

One module per job, each name re-exported here:

* :mod:`~gdlcheck.api.groups`: ``group`` and a group given by name and options;
* :mod:`~gdlcheck.api.forms`: ``derive`` and ``project``;
* :mod:`~gdlcheck.api.specs`: ``verify`` of a spec or matrix, ``verify_weights`` of a weights file;
* :mod:`~gdlcheck.api.callables`: ``verify_callable`` of code;
* :mod:`~gdlcheck.api.targets`: ``verify_target``, the command line's ``--callable module:attr``;
* :mod:`~gdlcheck.api.measuring`: ``measure``, a model's equivariance layer by layer on data;
* :mod:`~gdlcheck.api.examine`: ``inspect``, ``find_symmetries``, the matrix ``--plot`` draws;
* :mod:`~gdlcheck.api.reference`: the catalogues' names, the layer kinds, the spec schema;
* :mod:`~gdlcheck.api.options`: the checks of the options the calls share.

The results are the library's own records (:class:`~gdlcheck.verification.Verified`,
:class:`~gdlcheck.derivation.Derived`, ...); importing this package registers how they show
themselves (:mod:`gdlcheck.shown`).
"""

from gdlcheck.api.callables import verify_callable
from gdlcheck.api.examine import find_symmetries, input_matrix, inspect
from gdlcheck.api.forms import derive, project
from gdlcheck.api.groups import group
from gdlcheck.api.measuring import measure, measure_target
from gdlcheck.api.reference import group_names, kind, kinds, spec_schema
from gdlcheck.api.specs import verify, verify_input, verify_weights
from gdlcheck.api.targets import verify_target
from gdlcheck.code.actions import edges, fixed, graph, points, unchanged
from gdlcheck.code.layerwise import Measured
from gdlcheck.derivation import Derived, Projected
from gdlcheck.errors import CallableError, GdlcheckError
from gdlcheck.groups import FAMILIES, PermGroup
from gdlcheck.inputs.weights import is_weights_file
from gdlcheck.inspection import Inspected
from gdlcheck.output import present as _present
from gdlcheck.sources import GroupOptions
from gdlcheck.symmetries import Found
from gdlcheck.verdicts import Method, Verdict
from gdlcheck.verification import Verified
from gdlcheck.verification.result import TensorChecked

# the results returned here show themselves (to_json(), report(), plot()) through gdlcheck.output
_present.register_presenters()

# The names of the API: this list is the only one (the package re-exports the calls and the
# actions; tests/test_public_names.py checks that each is documented in the API reference and
# that nothing else is exported).
__all__ = [
    # the calls
    "group",
    "derive",
    "verify",
    "verify_callable",
    "verify_weights",
    "project",
    "inspect",
    "find_symmetries",
    "measure",
    # how the inputs of code move (verify_callable's inputs=)
    "points",
    "graph",
    "fixed",
    "edges",
    "unchanged",
    # what the calls return and raise
    "PermGroup",
    "Verified",
    "TensorChecked",
    "Derived",
    "Projected",
    "Inspected",
    "Found",
    "Measured",
    "GdlcheckError",
    "CallableError",
    # the words of a result's verdict and of a method (each member is its JSON string)
    "Verdict",
    "Method",
    # what the command line calls besides: the calls as its options give them, and the catalogues
    "verify_input",
    "verify_target",
    "measure_target",
    "input_matrix",
    "is_weights_file",
    "GroupOptions",
    "FAMILIES",
    "group_names",
    "kind",
    "kinds",
    "spec_schema",
]
