"""Output for people and pipelines: JSON objects, rich reports, and every sentence in them.

* :mod:`~gdlcheck.output.report`: every JSON object (docs/design.md section 6);
* rich renderables, one module per command (never prints, never makes a Console):
  :mod:`~gdlcheck.output.render_verify`, :mod:`~gdlcheck.output.render_derive` (and ``project``),
  :mod:`~gdlcheck.output.render_groups` (and ``symmetries``), :mod:`~gdlcheck.output.render_inspect`,
  :mod:`~gdlcheck.output.render_kinds`; built from :mod:`~gdlcheck.output.render_matrices` (a
  matrix as a table) and :mod:`~gdlcheck.output.render_parts` (safe text, verdict words, widths);
* ``--plot`` pictures: :mod:`~gdlcheck.output.plot_pictures` (what each command's picture shows, as
  data), :mod:`~gdlcheck.output.plot_colours` (the colours) and :mod:`~gdlcheck.output.plot` (drawing
  with matplotlib);
* :mod:`~gdlcheck.output.words`: the sentences of verification and inspection;
* :mod:`~gdlcheck.output.explain`: derive's prose, LaTeX and CSV;
* :mod:`~gdlcheck.output.present`: how each result shows itself (``to_json()``, ``report()``,
  ``plot()``), registered with :mod:`gdlcheck.shown`.

Only :mod:`gdlcheck.api` and :mod:`gdlcheck.cli` import this package.
"""
