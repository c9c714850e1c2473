"""What the walk cannot see itself: tensors made during the proof out of its sight (:class:`Sight`,
:func:`meet`), writes out of its sight (:func:`written_unseen`), and what an ``lru_cache`` holds
(:func:`cache_entries`).

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

A write out of the walk's sight (dispatch turned off, another thread) into a tensor the walk
knows changes what it holds unseen.  Every write bumps the version counter a tensor shares with its
views (even one no mode sees), after the operation returns; the walk enters each tensor with its
version and the count of writes it had seen, and counts the writes it sees by counter (a view an
operation made shares its base's; ``unsafe_split``'s pieces and ``.data`` have their own), so a
tensor's version must be the one it was entered with plus the writes seen since through its counter.

What an ``lru_cache`` holds is not public either; the garbage collector's view of a cache shows
its entries (:func:`cache_entries`), which the state fingerprint
(:mod:`~gdlcheck.code.prover.state`) reads.
"""

from __future__ import annotations

import bisect
import functools
import gc

from gdlcheck.code.prover.table import Halt
from gdlcheck.code.prover.values import Abstract, _op_text, _storage_object, _tensors, content_digest, user_line
from gdlcheck.layers.proofs import Role


class Sight:
    """``with Sight() as sight:`` around the proof; ``sight.new(t)``: whether ``t`` was made since
    it was entered.  Not reentrant: one per proof."""

    def __init__(self):
        self.frozen = False
        self._old: dict | None = None  # id -> tensor alive on entering, where freezing is not ours
        self._young: set[int] = set()  # ids of tensors found young: a young id stays young (below)
        self._known_old: dict = {}  # id -> tensor found old (held: its id stays its own)
        self._stamp: object = None  # when the young ids were listed (no code has run since)

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
        if not self.frozen:  # outside the sight: nothing is known to be old
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
        return Abstract(
            False,
            [
                Halt(
                    walk.place() or "call",
                    "a view of a value that moves, made outside torch's operations",
                    "no_op_rule",
                )
            ]
            * len(walk.gens),
        )
    name = walk.constant_names.get(id(tensor), "")
    unseen = not name and id(tensor) not in walk.given_ids and tensor not in walk.made
    stamp = (id(walk), walk.moment) if walk.meeting is not None else None  # no code ran in between
    if unseen and walk.sight is not None and walk.sight.new(tensor, stamp) and tensor not in walk.earlier:
        name = walk.state_storages.get(tensor)
        if not name:
            return _out_of_sight(walk)
    if unseen and not name:  # there before the proof: compared in full with the moved call's
        walk.foreign.append(content_digest(tensor))
    elif not name and id(tensor) not in walk.given_ids and _written_alias(walk, tensor):
        return _out_of_sight(walk, "written")
    role = walk.roles.get(name, Role.CONSTANT) if name else Role.CONSTANT
    return Abstract(True, origin=name, role=role, foreign=True)


def _written_alias(walk, tensor) -> bool:
    """A tensor over memory the call's operations made, met for the first time (a view made where
    the walk did not see it): it shares the version counter of what it views, so it is known only
    where a tensor the walk knows over that memory has its version, and none of them was written out
    of its sight."""
    s = _storage_object(tensor)
    if s is None or s.nbytes() == 0 or any(tensor is t for t in walk.returned):  # lift_fresh returns its argument
        return False
    kin = [t for t, _ in walk.values.items() if _storage_object(t) is s]
    try:
        return not any(t._version == tensor._version for t in kin) or any(written_unseen(walk, t) for t in kin)
    except RuntimeError:  # an inference tensor counts no versions
        return False


def _out_of_sight(walk, how: str = "made") -> Abstract:
    """A tensor made during the proof that no operation of the call returned: it may hold values of
    the points, which the walk did not see computed.  The proof stops; the moved call's walk keeps
    the stop for the proof to take (``out_of_sight``)."""
    used = (
        f"used by {_op_text(walk.meeting)}"
        if walk.meeting is not None
        else "handed on with no operation (to a submodule, or as the output)"
    )
    halt = Halt(
        walk.place() or "call",
        f"a tensor {how} out of the walk's sight (with torch's dispatch turned off, in "
        f"another thread, or by no operation), {used} at {user_line()}",
        "not_traced",
    )
    walk.everywhere = walk.everywhere or halt
    walk.out_of_sight = walk.out_of_sight or halt
    return Abstract(False, [halt] * len(walk.gens))


def written_unseen(walk, tensor) -> bool:
    """Whether something wrote into ``tensor`` (or a view sharing its version counter) that the walk
    did not see: its version is not the one it was entered with plus the writes seen since through
    its counter.  A ``.data`` taken through an operation (``detach``) is entered as sharing its
    base's counter, which it does not: the proof stops there too."""
    found = walk.values.recorded(tensor)  # (None for an inference tensor, which counts no versions)
    if found is None or tensor._version == found[0]:
        return False
    version, seen, family = found
    marks = walk.values.writes.get(family, ())
    return tensor._version != version + len(marks) - bisect.bisect_right(marks, seen)


def stop_if_written(walk, tensors, used: str) -> bool:
    """Stop the proof at the first of ``tensors`` written out of the walk's sight."""
    if not any(written_unseen(walk, t) for t in tensors):
        return False
    halt = Halt(
        walk.place() or "call",
        f"a tensor written out of the walk's sight (with torch's dispatch turned off, "
        f"or in another thread), {used} at {user_line()}",
        "not_traced",
    )
    walk.everywhere = walk.everywhere or halt
    walk.out_of_sight = walk.out_of_sight or halt
    return True


def count_writes(walk, op) -> None:
    """The writes an operation's schema says it makes, by version counter (their versions are bumped once
    the operation returns; ``transpose_`` too).  A view it made is entered with its base's
    version."""
    found = _SCHEMA_WRITES.get(op.func)
    if found is None:
        found = _SCHEMA_WRITES[op.func] = (
            op.func.is_view,
            [a.name for a in op.func._schema.arguments if a.alias_info is not None and a.alias_info.is_write],
        )
    is_view, names = found
    if is_view and op.tensors:  # views share their base's counter once the operation returns
        for t in op.outs:
            walk.values.share_version(t, op.tensors[0])
    if not names:
        return
    bound = op.bound
    values = walk.values
    for t in _tensors([bound.get(name) for name in names]):
        family = values.family(t)
        if family is not None:
            values.count += 1
            values.writes.setdefault(family, []).append(values.count)


# operation -> whether it makes views, and the arguments its schema writes
_SCHEMA_WRITES: dict = {}


def _link_type() -> type | None:
    """The type of a bounded lru_cache's recency links (not public): read off one probe cache."""

    @functools.lru_cache(maxsize=1)
    def probe() -> None:
        return None

    probe()
    own = getattr(probe, "__dict__", None)
    tables = [r for r in gc.get_referents(probe) if type(r) is dict and r is not own and r]
    return type(next(iter(tables[0].values()))) if len(tables) == 1 else None


_LINK = _link_type()


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
    links = [v for v in table.values() if type(v) is _LINK]
    if not links:  # unbounded: the dict maps each key to its value
        return list(table.items())
    if len(links) != len(table):
        return None
    keys = {id(k) for k in table}
    pairs, i = [], 0
    while i < len(refs) - 1:  # each link's key, then its result
        if id(refs[i]) in keys:
            keys.discard(id(refs[i]))
            pairs.append((refs[i], refs[i + 1]))
            i += 2
        else:
            i += 1
    return pairs if not keys else None
