"""What the walk cannot see itself: tensors made during the proof out of its sight (:class:`Sight`,
:func:`meet`), and what an ``lru_cache`` holds (:func:`cache_entries`).

A tensor the walk meets that no operation of the call returned, and that is no argument,
parameter or buffer, is one of two kinds.  Either it was there before the proof (a global
constant, a plain tensor attribute, what an ``lru_cache`` returns): the same object in both calls,
compared whole between them.  Or it was made during the proof where the dispatch mode does not
look: with torch's dispatch turned off (``no_dispatch``, ``torch._C._DisableTorchDispatch``), in
another thread (a ``threading.Thread``, a ``ThreadPoolExecutor``), or by no operation at all
(``torch.from_numpy``, ``torch.frombuffer``).  Such a tensor may have been computed from the points,
so it is no constant: the proof stops where the walk meets it.

Which kind a tensor is, is known exactly and cheaply from Python's garbage collector, which
tracks every tensor object: on entering, every object it tracks is moved to its permanent
generation (``gc.freeze``, which moves lists, copies nothing); an object tracked since then is
in one of the three ordinary generations, and nowhere else; on leaving, the frozen objects go
back to the oldest generation (``gc.unfreeze``).  Where the process has frozen objects itself
(a server before it forks), which a second unfreeze would thaw, the tensors alive on entering are
listed instead (a walk of every object: slower, as exact).

What an ``lru_cache`` holds is not public either; the garbage collector's view of a cache shows
its entries (:func:`cache_entries`), which the state fingerprint
(:mod:`~gdlcheck.code.prover.state`) reads.
"""

from __future__ import annotations

import gc

from gdlcheck.code.prover.table import Halt
from gdlcheck.code.prover.values import Abstract, _op_text, content_digest, user_line
from gdlcheck.layers.proofs import Role


class Sight:
    """``with Sight() as sight:`` around the proof; ``sight.new(t)``: whether ``t`` was made since
    it was entered.  Not reentrant: one per proof."""

    def __init__(self):
        self.frozen = False
        self._old: dict | None = None   # id -> tensor alive on entering, where freezing is not ours
        self._young: set[int] = set()   # ids of tensors found young: a young id stays young (below)
        self._known_old: dict = {}      # id -> tensor found old (held: its id stays its own)
        self._stamp: object = None      # when the young ids were listed (no code has run since)

    def __enter__(self) -> Sight:
        if gc.get_freeze_count() == 0:
            gc.freeze()
            self.frozen = True
        else:
            import torch

            self._old = {id(o): o for o in gc.get_objects() if isinstance(o, torch._C.TensorBase)}
        return self

    def __exit__(self, *exc) -> None:
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
        self._old = None
        self._young, self._known_old, self._stamp = set(), {}, None

    def new(self, tensor, stamp: object = None) -> bool:
        """Whether ``tensor`` was made after the sight was entered.  An id found young once names a
        young object for good: the object it named was not alive on entering, so no object alive
        then can hold that id later (ids are reused only after their object is freed).  ``stamp``
        names a moment with no code run in between (one operation's arguments): the young ids
        listed at that moment are all of them."""
        if self._old is not None:
            return self._old.get(id(tensor)) is not tensor
        if not self.frozen:   # outside the sight: nothing is known to be old
            return True
        key = id(tensor)
        if key in self._young:
            return True
        if self._known_old.get(key) is tensor:
            return False
        if stamp is None or stamp != self._stamp:
            import torch

            kind = torch._C.TensorBase
            self._young = {id(o) for generation in range(3) for o in gc.get_objects(generation) if isinstance(o, kind)}
            self._stamp = stamp
        if key in self._young:
            return True
        self._known_old[key] = tensor
        return False


def meet(walk, tensor) -> Abstract:
    """What a tensor the walk meets for the first time is: an alias made without torch's operations
    of a value that moves (``Parameter(x)``, a DLPack capsule's round trip over the same memory),
    whose moves are not known; a parameter or a buffer, or a view of one's memory made with no
    operation (``weight.data``); an argument or a tensor an operation returned; a tensor there
    before the proof, a constant whose content the moved call must see alike; or, made during the
    proof by none of the call's operations, a tensor made out of sight, which stops the proof."""
    if tensor in walk.moving or walk.moving.overlaps(tensor):
        return Abstract(False, [Halt(walk.place() or "call", "a view of a value that moves, made outside torch's "
                                     "operations", "no_op_rule")] * len(walk.gens))
    name = walk.constant_names.get(id(tensor), "")
    unseen = not name and id(tensor) not in walk.given_ids and tensor not in walk.made
    stamp = (id(walk), walk.moment) if walk.meeting is not None else None   # no code ran in between
    if unseen and walk.sight is not None and walk.sight.new(tensor, stamp) and tensor not in walk.earlier:
        name = walk.state_storages.get(tensor)
        if not name:
            return _out_of_sight(walk)
    if unseen and not name:   # there before the proof: compared in full with the moved call's
        walk.foreign.append(content_digest(tensor))
    role = walk.roles.get(name, Role.CONSTANT) if name else Role.CONSTANT
    return Abstract(True, origin=name, role=role, foreign=True)


def _out_of_sight(walk) -> Abstract:
    """A tensor made during the proof that no operation of the call returned: it may hold values of
    the points, which the walk did not see computed.  The proof stops; the moved call's walk keeps
    the stop for the proof to take (``out_of_sight``)."""
    used = (f"used by {_op_text(walk.meeting)}" if walk.meeting is not None
            else "handed on with no operation (to a submodule, or as the output)")
    halt = Halt(walk.place() or "call", f"a tensor made out of the walk's sight (with torch's dispatch turned off, in "
                                        f"another thread, or by no operation), {used} at {user_line()}", "not_traced")
    walk.everywhere = walk.everywhere or halt
    walk.out_of_sight = walk.out_of_sight or halt
    return Abstract(False, [halt] * len(walk.gens))


def cache_entries(wrapper) -> list | None:
    """The (key, value) pairs an lru_cache holds, read through the garbage collector's view of it
    (the cache is not public): its dict of keys, and, for a bounded cache whose dict maps a key to
    a link of its recency list, each link's key and result, visited in that order (then the link's
    type).  None where what is found is not that layout (then the proof stops)."""
    refs = gc.get_referents(wrapper)
    own = getattr(wrapper, "__dict__", None)
    tables = [r for r in refs if type(r) is dict and r is not own]
    if len(tables) != 1:
        return [] if not tables and wrapper.cache_info().currsize == 0 else None
    table = tables[0]
    links = [v for v in table.values() if type(v).__name__ == "_lru_list_elem"]
    if not links:   # unbounded: the dict maps each key to its value
        return list(table.items())
    if len(links) != len(table):
        return None
    keys = {id(k) for k in table}
    pairs, i = [], 0
    while i < len(refs) - 1:   # each link's key, then its result
        if id(refs[i]) in keys:
            keys.discard(id(refs[i]))
            pairs.append((refs[i], refs[i + 1]))
            i += 2
        else:
            i += 1
    return pairs if not keys else None
