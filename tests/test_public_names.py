"""One list of public names: ``gdlcheck.__all__`` for the package and ``gdlcheck.api.__all__`` for
the API (and ``gdlcheck.testing.__all__``, the pytest helper). Every name on them imports, the API reference documents it, the names type checkers see
are the same, and nothing else is exported."""

import ast
import importlib
import re
import types

import pytest

import gdlcheck
import gdlcheck.api as api
from tests.conftest import ROOT

REFERENCE = ROOT / "docs" / "api.md"
DIRECTIVE = re.compile(r"^::: ([\w.]+)\n((?:[ \t]+\S.*\n)*)", re.M)
# the torch extra's layers are documented beside the API but are not part of `import gdlcheck`
# (importing them imports torch)
TORCH_EXTRA = "gdlcheck.nn"
# bound in the package's namespace for its own use, not exported: the constant type checkers read,
# and the __future__ import's feature
NOT_NAMES = {"TYPE_CHECKING", "annotations"}


def resolve(target: str):
    """The object a ``::: target`` line documents."""
    parts = target.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError:
            continue
        for part in parts[k:]:
            obj = getattr(obj, part)
        return obj
    raise AssertionError(f"docs/api.md documents {target}, which does not import")


def documented(text: str) -> list:
    """What a reference page documents: each ``:::`` target, and the members it lists (a module
    without a list documents every public name it defines)."""
    out = []
    for target, options in DIRECTIVE.findall(text):
        if target.startswith(TORCH_EXTRA):
            continue
        obj = resolve(target)
        out.append(obj)
        members = re.search(r"members: \[([^\]]*)\]", options)
        if isinstance(obj, types.ModuleType):
            names = (
                [m.strip() for m in members[1].split(",")]
                if members
                else [
                    n
                    for n, v in vars(obj).items()
                    if not n.startswith("_") and getattr(v, "__module__", None) == obj.__name__
                ]
            )
            out += [getattr(obj, name) for name in names]
    return out


def undocumented(module: types.ModuleType, text: str) -> list[str]:
    objects = documented(text)
    return [
        name
        for name in module.__all__
        if name != "__version__" and not any(getattr(module, name) is obj for obj in objects)
    ]


def exported(module: types.ModuleType) -> set[str]:
    """The public names bound in ``module`` that are not submodules."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    } - NOT_NAMES


@pytest.mark.parametrize("module", [gdlcheck, api], ids=["gdlcheck", "gdlcheck.api"])
def test_every_public_name_imports_once_and_is_documented(module):
    assert len(module.__all__) == len(set(module.__all__))
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    assert undocumented(module, REFERENCE.read_text(encoding="utf-8")) == []
    assert exported(module) <= set(module.__all__) | {"__version__"}


def test_the_pytest_helpers_export_what_the_reference_documents():
    import gdlcheck.testing as testing

    assert testing.__all__ == ["assert_equivariant"]
    assert undocumented(testing, REFERENCE.read_text(encoding="utf-8")) == []


def test_the_check_finds_a_name_the_reference_leaves_out():
    text = REFERENCE.read_text(encoding="utf-8").replace(", find_symmetries, measure]", ", find_symmetries]")
    assert undocumented(gdlcheck, text) == ["measure"]


def test_the_package_exports_the_apis_objects_and_nothing_else():
    for name in gdlcheck.__all__:
        value = getattr(gdlcheck, name)
        if name in api.__all__:
            assert value is getattr(api, name), name
    assert exported(gdlcheck) <= set(gdlcheck.__all__)
    assert "__version__" in REFERENCE.read_text(encoding="utf-8")
    with pytest.raises(AttributeError):
        gdlcheck.Verified  # in the API, not in the package's list  # noqa: B018
    namespace = {}
    exec("from gdlcheck import *", namespace)
    assert set(namespace) - {"__builtins__"} == set(gdlcheck.__all__)


def test_the_api_binds_nothing_public_beside_its_list():
    assert exported(api) == set(api.__all__)


def test_type_checkers_see_the_same_names():
    """The ``TYPE_CHECKING`` block of the package imports exactly the names of ``__all__``."""
    tree = ast.parse((ROOT / "gdlcheck" / "__init__.py").read_text(encoding="utf-8"))
    (block,) = [
        node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"
    ]
    seen = [alias.asname or alias.name for node in block.body for alias in node.names]
    assert sorted(seen) == sorted(set(gdlcheck.__all__) - {"__version__"})


def test_a_results_verdict_and_method_are_the_public_enums():
    """``gdlcheck.Verdict`` is the type of a result's verdict, and its members are the JSON words."""
    result = gdlcheck.verify(str(ROOT / "samples" / "conv.yaml"))
    assert isinstance(result.verdict, gdlcheck.Verdict)
    assert result.verdict == gdlcheck.Verdict.HOLDS == "holds"
    assert all(isinstance(check.method, gdlcheck.Method) for check in result.checks)
    assert gdlcheck.Method.EXACT == "exact"
