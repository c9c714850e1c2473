"""One type per result: the API returns the library's own records, and each reaches its JSON,
report and picture in gdlcheck.output through the registry of gdlcheck.shown."""

import numpy as np
import pytest

import gdlcheck
import gdlcheck.api  # noqa: F401  (registers the presenters)
from gdlcheck import derivation, shown
from gdlcheck.code.layerwise import Measured
from gdlcheck.derivation import Derived, Projected
from gdlcheck.inspection import Inspected
from gdlcheck.output import report
from gdlcheck.symmetries import Found
from gdlcheck.verification import Check, Verified
from gdlcheck.verification.result import TensorChecked, TensorsChecked
from tests.conftest import SAMPLES


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_record_that_shows_itself_has_a_presenter():
    records = {cls for cls in _subclasses(shown.Serialised) if cls.__module__.startswith("gdlcheck.")} - {shown.Shown}
    assert records == {Verified, Check, TensorChecked, TensorsChecked, Derived, Projected, Inspected, Found, Measured}
    for cls in records:
        p = shown._PRESENTERS[cls]
        # a result with a report has its text and HTML; only records that draw have a figure
        assert (p.text is not None and p.html is not None) == issubclass(cls, shown.Shown), cls
        assert (p.figure is not None) == hasattr(cls, "plot"), cls


def test_the_api_returns_the_layers_own_records():
    g = gdlcheck.group("cyclic", n=6)
    d = gdlcheck.derive(g)
    assert type(d) is Derived and type(derivation.derive(g)) is Derived
    W = np.random.default_rng(0).standard_normal(6)[d.pattern]
    r = gdlcheck.verify(W, g)
    assert type(r) is Verified and all(type(c) is Check for c in r.checks)
    assert type(gdlcheck.project(W, g)) is Projected
    assert type(gdlcheck.find_symmetries(W)) is Found
    assert type(gdlcheck.inspect(SAMPLES / "gcn.yaml")) is Inspected
    checked = gdlcheck.verify_weights(SAMPLES / "checkpoint.npz", "cyclic")
    assert type(checked) is TensorsChecked and {type(t) for t in checked} == {TensorChecked}
    assert gdlcheck.api.Verified is Verified and gdlcheck.api.Derived is Derived


def test_to_json_is_outputs_json_of_the_record():
    g = gdlcheck.group("cyclic", n=4)
    W = np.eye(4)
    W[0, 1] = 1.0
    r = gdlcheck.verify(W, g)
    assert r.to_json() == report.verify_json(r)
    assert [c.to_json() for c in r.checks] == r.to_json()["checks"]
    assert r.checks[0].counterexample == report.check_json(r.checks[0])["counterexample"] is not None
    d = gdlcheck.derive(g, in_order=2, out_order=1)
    assert d.to_json() == report.derive_json(d)
    p = gdlcheck.project(W, g)
    assert p.to_json("w.npy") == report.project_json("w.npy", g, p.matrix, p.distance)


def test_a_record_output_does_not_show_says_so_and_a_subclass_shows_as_its_base():
    class Stray(shown.Shown):
        pass

    with pytest.raises(RuntimeError, match="Stray is shown by gdlcheck.output"):
        Stray().to_json()

    class Local(Found):
        pass

    found = gdlcheck.find_symmetries(np.ones((3, 3)))
    local = Local(**{k: getattr(found, k) for k in ("group", "colours", "contains", "tol")})
    assert local.to_json("m") == found.to_json("m")


def test_a_list_of_checked_tensors_and_a_projection_show_themselves(tmp_path):
    checked = gdlcheck.verify_weights(SAMPLES / "checkpoint.npz", "cyclic", n=8)
    text = checked.report()
    assert "4 tensors: 2 hold, 1 fail, 1 not judged" in text and "mix.weight" in text
    assert "<table" in checked._repr_html_() or "<pre" in checked._repr_html_()
    assert checked.to_json() == [c.to_json() for c in checked]
    pytest.importorskip("matplotlib")
    W = np.load(SAMPLES / "trained.npy")
    figure = gdlcheck.project(W, "cyclic").plot()
    assert len(figure.axes) >= 3  # the matrix, its projection and where they differ
    figure.savefig(tmp_path / "p.png")
    assert (tmp_path / "p.png").stat().st_size > 0
