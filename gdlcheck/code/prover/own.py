"""What is the user's own code, which the state fingerprint (:mod:`~gdlcheck.code.prover.state`)
follows: a function or class defined in a file outside the standard library, the installed
packages and gdlcheck (those are trusted to keep no state that changes what a call computes),
and the names a function's code uses."""

from __future__ import annotations

import functools
import operator
import sys
import types


def code_names(code) -> tuple:
    """The global and attribute names a code object uses, with those of the code inside it
    (comprehensions, lambdas, nested functions), and the strings it holds that could be names
    (``globals()["k"]``, ``vars(OTHER)["n"]``, ``getattr(OTHER, "n")``)."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.extend(code_names(const))
        elif isinstance(const, str) and const.isidentifier():
            names.append(const)
    return tuple(dict.fromkeys(names))


def users_class(cls) -> bool:
    """The class is the user's own code (defined in a file of theirs, or in no file).  Answered
    once per class (by its id, the class kept beside the answer: a metaclass's ``__hash__`` is the
    user's code, and an id is another class's only once this one is gone)."""
    known = _CLASSES.get(id(cls))
    if known is not None and known[0] is cls:
        return known[1]
    module = sys.modules.get(cls.__module__)
    path = getattr(module, "__file__", None)
    answer = own_file(path) if isinstance(path, str) else module is None or cls.__module__ == "__main__"
    _CLASSES[id(cls)] = (cls, answer)
    return answer


_CLASSES: dict[int, tuple] = {}


def class_functions(cls, functions) -> list:
    """``(attr, function)`` for each of the user's functions among a class's attributes (``functions(value)``:
    those behind a value, :func:`~gdlcheck.code.prover.kept.functions`).  A class not
    of the user's code (torch's) is answered once and the answer kept while its dictionary holds the
    same objects under the same names and each function behind them keeps its code (a function's
    ``__code__`` can be set, and its file is what makes it the user's; a property's, static or class
    method's function cannot be), so that torch's classes are not read again at every walk.  The
    class is kept beside its answer (its id is its own while it lives)."""
    names, held = tuple(vars(cls)), tuple(vars(cls).values())
    found = _OWN.get(id(cls))
    if (
        found is not None
        and found[0] is cls
        and len(found[2]) == len(held)
        and all(map(operator.is_, found[1], names))
        and all(map(operator.is_, found[2], held))
        and all(map(operator.is_, map(_CODE, found[3]), found[4]))
    ):
        return found[5]
    fns = [fn for v in held for fn in functions(v)]
    out = [
        (attr if i == 0 else f"{attr}#{i}", fn)
        for attr, v in zip(names, held)
        for i, fn in enumerate(functions(v))
        if users(fn)
    ]
    if not users_class(cls):  # (the user's classes change, and come and go, more often)
        _OWN[id(cls)] = (cls, names, held, fns, tuple(map(_CODE, fns)), out)
    return out


_OWN: dict[int, tuple] = {}
_CODE = operator.attrgetter("__code__")


def users(fn) -> bool:
    """The function is the user's own code: not torch's, gdlcheck's, the standard library's or an
    installed package's (those are trusted to keep no state that changes what a call computes)."""
    return own_file(fn.__code__.co_filename)


@functools.lru_cache(maxsize=4096)
def own_file(path: str) -> bool:
    import os

    if path.startswith("<") and not path.startswith("<string"):  # frozen modules
        return False
    if os.path.isabs(path):  # (a relative one depends on the working directory: not remembered)
        known = OWN_FILES.get(path)
        if known is None:
            known = OWN_FILES[path] = not path.startswith(trusted_roots())
        return known
    return not os.path.abspath(path).startswith(trusted_roots())


# each absolute file name's answer (a walk asks for every function of every class of the module,
# each time: sysconfig's paths cost more than the rest of a small module's walk)
OWN_FILES: dict[str, bool] = {}


@functools.lru_cache(maxsize=1)
def trusted_roots() -> tuple[str, ...]:
    """The folders of the standard library, the installed packages and gdlcheck, each ending in a
    separator."""
    import os
    import sysconfig

    trusted = {sysconfig.get_paths()[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    root = os.path.abspath(__file__)
    for _ in range(__name__.count(".")):  # gdlcheck.code.prover.own: three folders up is gdlcheck's own
        root = os.path.dirname(root)
    trusted.add(root)
    return tuple(os.path.abspath(t) + os.sep for t in trusted)


def installed(cls) -> bool:
    """Whether torch's class ``cls`` runs the installed code: no method of it or of its bases up to
    ``Module``, and no function their code names through a module of their globals (``F.conv1d``,
    ``F.pad``), is the user's code or a callable of no known kind (a ``functools.partial``).  A
    patch at run time (``torch.nn.Conv1d.forward = ...``) makes it other code.  The answer is kept
    with the objects it read, and given again while each is still where it was."""
    import torch

    known = _INSTALLED.get(cls)
    if known is not None and all(getattr(holder, name, None) is obj for holder, name, obj in known[1]):
        return known[0]
    read: dict = {}  # (holder, name) by their ids -> (holder, name, what it held)
    for klass in cls.__mro__[: cls.__mro__.index(torch.nn.Module)]:
        for key, value in vars(klass).items():
            read[id(klass), key] = (klass, key, value)
            f = getattr(value, "__func__", None) or getattr(value, "fget", None) or value
            names = getattr(getattr(f, "__code__", None), "co_names", ())
            for found in (f.__globals__.get(name) for name in names):
                if not isinstance(found, types.ModuleType):
                    continue
                for used in names:
                    read[id(found), used] = (found, used, getattr(found, used, None))
    answer = not any(_foreign(obj) for _, _, obj in read.values())
    _INSTALLED[cls] = (answer, list(read.values()))
    return answer


_INSTALLED: dict = {}
# C functions, the modules they live in, and descriptors: the installed code's
_BUILTIN = (types.BuiltinFunctionType, types.MethodWrapperType, types.WrapperDescriptorType, types.ModuleType)


def _foreign(obj) -> bool:
    """``obj`` (a class's attribute, or a function a method names) is code other than the installed
    packages': the user's function or class, or a callable of no known kind."""
    f = getattr(obj, "__func__", None) or getattr(obj, "fget", None) or obj
    if f is None or isinstance(f, _BUILTIN) or not callable(f):
        return False
    if isinstance(f, type):
        return users_class(f)
    if not hasattr(f, "__code__"):
        return True
    return not f.__code__.co_filename.startswith(_torchs_folder()) and users(f)  # torch wherever installed


@functools.lru_cache(maxsize=1)
def _torchs_folder() -> str:
    import os

    import torch

    return os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


def kernels_of_the_program() -> frozenset:
    """The aten operations (``aten::sigmoid``, ``aten::add.Tensor``) with a kernel registered from
    Python (``torch.library``) for a dispatch key a CPU tensor reaches: the program's code runs in
    place of torch's.  Read again when torch's table of Python kernels changes size."""
    import torch

    impls = getattr(torch.library, "_impls", ())
    if _REGISTERED[0] != len(impls):
        _REGISTERED[:] = [len(impls), None]
        _REGISTERED[1] = frozenset(
            "aten::" + key.split("/")[1] for key in impls if key.startswith("aten/") and key.split("/")[-1] in _CPU_KEYS
        )
    return _REGISTERED[1]


# the dispatch keys whose kernels a CPU tensor's operation may run
_CPU_KEYS = frozenset(
    {
        "CPU",
        "AutogradCPU",
        "Autograd",
        "CompositeImplicitAutograd",
        "CompositeExplicitAutograd",
        "CompositeExplicitAutogradNonFunctional",
        "BackendSelect",
        "ADInplaceOrView",
        "AutocastCPU",
    }
)
_REGISTERED: list = [-1, frozenset()]  # the table's size when read, and what it held
