"""Reading what the user gives: expression strings, matrices from files and values, YAML specs.

* :mod:`~gdlcheck.inputs.expr`: the whitelisting expression parser;
* :mod:`~gdlcheck.inputs.files`: the bytes of a file or standard input, within the size limit;
* :mod:`~gdlcheck.inputs.matrices`: a matrix file by its format (``.npy .json``, text, weights);
* :mod:`~gdlcheck.inputs.tables`: matrices written as text (``.csv .tsv .txt``), counted before parsed;
* :mod:`~gdlcheck.inputs.arrays`: arrays from spec values and Python objects, entry by entry;
* :mod:`~gdlcheck.inputs.spec`: YAML specs through the safe composer, checked key by key.

Nothing here builds layers or groups: :mod:`gdlcheck.sources` turns an input into a job.
"""
