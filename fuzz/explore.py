"""Search for new examples: the property tests under hypothesis's exploring profile (run by hand).

    python fuzz/explore.py                 # one run of every property test, a fresh seed
    python fuzz/explore.py --runs 5 -m "not slow"

The README's test command draws the same examples on every run (tests/conftest.py), so a green
run stays green; this script is where new examples are looked for. Each run picks a fresh seed,
prints it with the command that replays it, and runs every test module that holds a
``@given`` test under ``--hypothesis-profile explore``. A failure is kept in ``.hypothesis/``;
add it to its test as an ``@example`` so the default run checks it from then on. The exit code
is the first failing run's pytest exit code (0 when every run passed).
"""

import argparse
import pathlib
import secrets
import subprocess
import sys

TESTS = pathlib.Path(__file__).resolve().parent.parent / "tests"


def property_test_files() -> list[str]:
    return sorted(str(path) for path in TESTS.glob("test_*.py") if "@given" in path.read_text())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="how many runs, each with its own seed")
    parser.add_argument("-m", dest="marks", default=None, help="a pytest mark expression, e.g. 'not slow'")
    args = parser.parse_args()
    status = 0
    for run in range(args.runs):
        seed = secrets.randbelow(2**32)
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:randomly",
            "--hypothesis-profile",
            "explore",
            f"--hypothesis-seed={seed}",
            *(["-m", args.marks] if args.marks else []),
            *property_test_files(),
        ]
        print(f"run {run + 1} of {args.runs}, replay: {' '.join(command[1:])}", flush=True)
        code = subprocess.call(command)
        status = status or code
    return status


if __name__ == "__main__":
    sys.exit(main())
