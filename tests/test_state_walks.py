"""The state walks of a check of torch code (issue 33, item 5): each call the proof makes is walked
before and after (a snapshot is not reused across gdlcheck's own reading of the module, which may
run the user's code: an overridden ``named_parameters``), and the walk meets containers by their
exact type first.  Each change a call makes is seen by the walk around that call."""

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.utils._python_dispatch import _disable_current_modes  # noqa: E402

import gdlcheck  # noqa: E402
from gdlcheck.code.prover import prove, state  # noqa: E402

N, D = 8, 2


class ChangesOnAnotherInput(torch.nn.Module):
    """Adds |x[0, 0] - c| to a buffer: nothing on the proof's first input (c is its x[0, 0]), something
    on the moved one (every shift of the cyclic group moves row 0), under disabled dispatch: the walk
    does not see the write, only the state walk after the call does."""

    def __init__(self):
        super().__init__()
        first = np.random.default_rng([0, prove.PROOF_TRIAL]).standard_normal((N, D))
        self.c = float(first[0, 0])
        self.register_buffer("total", torch.zeros((), dtype=torch.float64))

    def forward(self, x):
        with _disable_current_modes():
            self.total.add_((x[0, 0] - self.c).abs())
        return x * 1.0


def test_a_change_made_by_the_moved_call_alone_stops_the_proof(monkeypatch):
    monkeypatch.setattr(prove, "_disagreement", lambda *args, **kwargs: None)  # the state check alone
    result = gdlcheck.verify_callable(ChangesOnAnotherInput(), "cyclic", shape=(N, D), method="exact")
    assert result.verdict == "inconclusive"
    assert "a second call changes state" in str(result.proof.stops)


@pytest.mark.parametrize("change", ["hook", "set", "list", "tuple", "dict subclass"])
def test_a_change_inside_a_container_attribute_is_seen(change):
    """Containers met by their exact type (a module's hook tables are OrderedDicts) are walked as before."""

    class Table(dict):
        pass

    module = torch.nn.Linear(D, D)
    module.names, module.rows, module.pair, module.table = {1}, [1, [2]], (1, [2]), Table(a=[1])
    before = state.snapshot(module)
    if change == "hook":
        module.register_forward_hook(lambda *args: None)
    elif change == "set":
        module.names.add(2)
    elif change == "list":
        module.rows[1].append(3)
    elif change == "tuple":
        module.pair[1][0] = 3
    else:
        module.table["a"][0] = 2
    assert state.changed(before, state.snapshot(module))


def test_gdlcheck_s_own_code_is_trusted_wherever_the_prover_sits():
    """gdlcheck's folder is found from the state module's dotted name, so moving the prover into a
    subpackage keeps every gdlcheck module trusted (its layers' functions are no user state), and a
    file outside stays the user's."""
    import gdlcheck.nn.linear
    from gdlcheck.code.prover import own, state

    assert not own.own_file(gdlcheck.nn.linear.__file__)
    assert not own.own_file(state.__file__)
    assert own.own_file(__file__)
    # and a stop note's "at file:line" skips every gdlcheck frame, not only the prover's
    from gdlcheck.code.prover import values

    assert values._HERE == os.path.dirname(os.path.abspath(gdlcheck.__file__))


class _Origin:
    """An alias's origin that is no class: the alias answers its attributes as its own."""

    def __init__(self):
        self.count = 0


def test_an_alias_is_read_as_the_long_way_reads_it():
    """typing's aliases skip the chain of kinds, with the fingerprint the chain gives each (an
    origin's attributes too, where the alias answers an instance's)."""
    import collections.abc
    import types

    origin = _Origin()
    aliases = [list[int], dict[str, list[int]], int | None, tuple[int, ...], types.GenericAlias(origin, (int,))]
    aliases += [list[torch.Tensor] | None, collections.abc.Callable[[int], int]]
    for alias in aliases:
        quick, long = state._Fingerprint(), state._Fingerprint()
        long._visit(alias)
        assert quick.of(alias) == long._fields(alias), alias
    before = state._Fingerprint().of(aliases[4])
    origin.count += 1  # the instance an alias answers for: its attributes count
    assert state._Fingerprint().of(aliases[4]) != before


def test_a_users_function_set_on_a_submodule_is_walked():
    """The user's functions set on a submodule (not its class's) are read with their state, in the
    walk's one pass over the submodule's attributes."""
    box = [0]

    def scale(x):
        return x * box[0]

    module = torch.nn.Sequential(torch.nn.Linear(D, D))
    module[0].scale = scale
    before = state.snapshot(module)
    assert ("0", "<code scale>") in before
    box[0] = 1
    assert state.changed(before, state.snapshot(module)) == ["0.scale"]


def test_a_function_of_the_users_set_on_torchs_class_is_walked_after_a_walk(monkeypatch):
    """torch's classes' functions are read once and kept while the class holds the same objects: a
    function of the user's set on one later (or a trusted function given the user's code) is walked."""
    from gdlcheck.code.prover import kept, own

    box = [0]

    def extra(self):
        return box[0]

    module = torch.nn.Linear(D, D)
    first = state.snapshot(module)
    assert not any("<code Linear." in key for _, key in first)
    monkeypatch.setattr(torch.nn.Linear, "extra", extra, raising=False)
    before = state.snapshot(module)
    assert ("", "<code Linear.extra>") in before
    box[0] = 1
    assert state.changed(before, state.snapshot(module)) == ["<code Linear.extra>"]

    def trusted(self):  # torch's file: the user's code set as its __code__ below
        return 0

    trusted.__code__ = trusted.__code__.replace(co_filename=torch.nn.modules.linear.__file__)
    monkeypatch.setattr(torch.nn.Linear, "extra", trusted)
    assert own.class_functions(torch.nn.Linear, kept.functions) == []

    def plain(self):  # this file's: the user's
        return 1

    monkeypatch.setattr(trusted, "__code__", plain.__code__)
    assert own.class_functions(torch.nn.Linear, kept.functions) == [("extra", trusted)]
