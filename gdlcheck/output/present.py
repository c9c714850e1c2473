"""How each result shows itself: the registry of :mod:`gdlcheck.shown`, filled with this package's
JSON, reports and pictures.

A result's ``to_json()``, ``report()``, ``_repr_html_`` and ``plot()`` are defined on the
record (below this package, which it may not import) and find their :class:`~gdlcheck.shown.Presenter`
here, once :func:`register_presenters` has run: :mod:`gdlcheck.api` runs it on import.  The
reports and pictures import rich and matplotlib only when one is asked for.
"""

from __future__ import annotations

import io

from gdlcheck.code.layerwise import Measured
from gdlcheck.derivation import Derived, Projected
from gdlcheck.errors import GdlcheckError
from gdlcheck.inspection import Inspected
from gdlcheck.output import report
from gdlcheck.shown import REPORT_WIDTH, Presenter, register
from gdlcheck.symmetries import Found
from gdlcheck.verdicts import Verdict
from gdlcheck.verification.result import Check, TensorChecked, TensorsChecked, Verified


def _console(width: int, renderable):
    from rich.console import Console

    console = Console(
        file=io.StringIO(),
        width=width,
        record=True,
        force_terminal=False,
        force_jupyter=False,
        color_system="truecolor",
        legacy_windows=False,
        soft_wrap=False,
    )
    console.print(renderable)
    return console


def _shown_by(renderable, json, figure=None) -> Presenter:
    """A presenter whose report and HTML are the rich ``renderable(record)`` laid out as the command prints it."""
    return Presenter(
        json=json,
        text=lambda record, width: _console(width, renderable(record)).export_text(),
        html=lambda record: _console(REPORT_WIDTH, renderable(record)).export_html(
            inline_styles=True, code_format='<pre style="font-family: monospace; line-height: 1.25">{code}</pre>'
        ),
        figure=figure,
    )


def _render_verify(result: Verified):
    from gdlcheck.output.render_verify import render_verify

    return render_verify(result)


def _verify_figure(result: Verified):
    """The matrix ``result._matrix`` (checked to be numbers by ``Verified.plot``), its projection and ``W - P``."""
    from gdlcheck.derivation import project
    from gdlcheck.output import plot, plot_pictures

    W = result._matrix
    if W is None:  # Verified.plot refuses a result that is not of one matrix before it comes here
        raise GdlcheckError(f"plot() draws a matrix; this result is of a {result.kind}")
    P, distance = project(W, result.group)
    return plot.figure(
        plot_pictures.matrix_picture(
            result.input,
            W,
            P,
            result.group,
            distance,
            Verdict(result.verdict).word,
            tol=result._tol,
            cells=plot_pictures.counterexample_cells(result),
        )
    )


def _render_weights(checked: TensorsChecked):
    from gdlcheck.output.render_verify import render_weights

    return render_weights(checked[0].input if checked else "<weights>", checked)


def _render_measure(measured: Measured):
    from gdlcheck.output.render_measure import render_measure

    return render_measure(measured)


def _measure_figure(measured: Measured):
    from gdlcheck.output import plot, plot_pictures

    return plot.figure(plot_pictures.measure_picture(measured))


def _project_figure(projected: Projected):
    """The input, its projection and ``|W - P|`` (``project --plot``)."""
    from gdlcheck.output import plot, plot_pictures

    if projected._input is None:
        raise GdlcheckError("plot() draws the input beside its projection; this result was made without it")
    return plot.figure(
        plot_pictures.matrix_picture(
            projected._label, projected._input, projected.matrix, projected.group, projected.distance
        )
    )


def _render_derive(d: Derived):
    from gdlcheck.output.render_derive import render_derive

    return render_derive(d)


def _derive_figure(d: Derived):
    from gdlcheck.output import plot, plot_pictures

    return plot.figure(plot_pictures.derive_picture(d))


def _render_inspect(inspection: Inspected):
    from gdlcheck.output.render_inspect import render_inspect

    return render_inspect(inspection)


def _render_symmetries(found: Found):
    from gdlcheck.output.render_groups import render_symmetries

    return render_symmetries("<matrix>", found)


def _render_project(projected: Projected):
    from gdlcheck.output.render_derive import render_project

    return render_project("<matrix>", projected.group, projected.matrix, projected.distance)


def register_presenters() -> None:
    """Show every result through this package (the API calls it on import; calling it again changes nothing)."""
    register(Verified, _shown_by(_render_verify, report.verify_json, figure=_verify_figure))
    register(Check, Presenter(json=report.check_json))
    register(TensorChecked, Presenter(json=report.tensor_json))
    register(TensorsChecked, _shown_by(_render_weights, lambda checked: [c.to_json() for c in checked]))
    register(Measured, _shown_by(_render_measure, report.measure_json, figure=_measure_figure))
    register(Derived, _shown_by(_render_derive, report.derive_json, figure=_derive_figure))
    register(Inspected, _shown_by(_render_inspect, report.inspect_json))
    register(Found, _shown_by(_render_symmetries, lambda found, input: report.symmetries_json(input, found)))
    register(
        Projected,
        _shown_by(
            _render_project,
            lambda projected, input: report.project_json(input, projected.group, projected.matrix, projected.distance),
            figure=_project_figure,
        ),
    )
