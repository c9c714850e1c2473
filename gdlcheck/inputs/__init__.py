"""Reading what the user gives: expression strings, matrices from files and values, YAML specs.

* :mod:`~gdlcheck.inputs.expr`: the whitelisting expression parser;
* :mod:`~gdlcheck.inputs.matrices`: matrices from ``.npy .csv .tsv .txt .json`` and from spec values;
* :mod:`~gdlcheck.inputs.spec`: YAML specs through the safe composer, checked key by key.

Nothing here builds layers or groups: :mod:`gdlcheck.sources` turns an input into a job.
"""
