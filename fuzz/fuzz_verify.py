"""Coverage-guided fuzzing of gdlcheck's input path with atheris (run by hand, not in CI).

    python -m pip install atheris
    mkdir -p fuzz/corpus && cp samples/*.yaml samples/*.csv fuzz/corpus/
    python fuzz/fuzz_verify.py -max_total_time=600 -timeout=20 fuzz/corpus/

Each input is read as ``gdlcheck verify -`` reads standard input (a spec or a matrix, told
apart by content) and verified against the cyclic group. gdlcheck's own input errors
(GdlcheckError) are the expected outcome for bad input; any other exception is a finding.
"""

import sys

import atheris

with atheris.instrument_imports():
    from gdlcheck.errors import GdlcheckError
    from gdlcheck.sources import GroupOptions, resolve
    from gdlcheck.verification import Options, verify_layer


def test_one_input(data: bytes) -> None:
    try:
        job = resolve("-", GroupOptions(name="cyclic"), stdin_data=data)
        verify_layer(job.layer, job.group, expect=job.expect, channels=job.channels, options=Options(trials=1))
    except GdlcheckError:
        pass


if __name__ == "__main__":
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()
