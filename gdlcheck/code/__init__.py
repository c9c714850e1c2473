"""Checking code: a user's callable or torch module as a layer, its numeric trials' moves, its
culprit, and proofs of torch modules by following the call they run.

The callable as a layer and what the check tells of it:

* :mod:`~gdlcheck.code.input_shape`: the input's shape and where its points are;
* :mod:`~gdlcheck.code.running`: the user's code as gdlcheck runs it (found, built, its weights,
  size and layout checked, a torch module's copy in the run's dtype);
* :mod:`~gdlcheck.code.user_code`: ``CallableLayer``, the code as a layer (its inputs built, its
  outputs flattened);
* :mod:`~gdlcheck.code.actions`: how the group acts on one input or output (``points``, ``graph``,
  ``fixed``, ``edges``, ``unchanged``), and moving arrays by it;
* :mod:`~gdlcheck.code.signature`: a call's ``Signature``, and :mod:`~gdlcheck.code.describe`,
  building one from the user's description;
* :mod:`~gdlcheck.code.relation`: whether two tensors are related by a generator (the culprit's test);
* :mod:`~gdlcheck.code.culprit`: the first submodule that breaks the symmetry;
* :mod:`~gdlcheck.code.graphs`: graph values (dense, sparse, edge lists), moved and compared;
* :mod:`~gdlcheck.code.torch_bridge`: torch at the boundary (tensors, calls, hooks).

The proof of a torch module:

* :mod:`~gdlcheck.code.prover.prove`: ``prove_call``, the entry: the call's inputs, two real calls,
  the conclusion;
* :mod:`~gdlcheck.code.prover.walk`: the dispatch mode that follows the call operation by operation;
* :mod:`~gdlcheck.code.prover.table`: the one rule table, keyed by operation objects;
* :mod:`~gdlcheck.code.prover.rules`: the rules, by kind of operation;
* :mod:`~gdlcheck.code.prover.moves`: how a generator moves one tensor (the abstract value).

Nothing is imported here: torch is imported only when a module is checked.
"""
