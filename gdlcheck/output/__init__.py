"""Output for people and pipelines: JSON objects, rich reports, and every sentence in them.

* :mod:`~gdlcheck.output.report`: every JSON object (DESIGN.md section 6);
* :mod:`~gdlcheck.output.render`: rich renderables (never prints, never makes a Console);
* :mod:`~gdlcheck.output.words`: the sentences of verification and inspection;
* :mod:`~gdlcheck.output.explain`: derive's prose, LaTeX and CSV;
* :mod:`~gdlcheck.output.present`: how each result shows itself (``to_json()``, ``report()``,
  ``plot()``), registered with :mod:`gdlcheck.shown`.

Only :mod:`gdlcheck.api` and :mod:`gdlcheck.cli` import this package.
"""
