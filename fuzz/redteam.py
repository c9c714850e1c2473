"""A red-team run of every command and of the Python API, derandomized, each case under a time
limit and the whole run under a memory cap.

    python fuzz/redteam.py --cases 300 --seed 0            # what CI runs (tests/test_redteam.py)
    python fuzz/redteam.py --cases 5000 --seed 7 --keep found/   # a longer run by hand
    python fuzz/redteam.py --surfaces new --cases 40       # only the surfaces of issue 23 (fuzz/surfaces.py)
    python fuzz/redteam.py --surfaces checkpoints --cases 200   # only weights files (fuzz/checkpoints.py)

Cases are drawn from a seeded generator: random files (CSV, TSV, text, JSON, .npy of every
dtype and rank, YAML specs mutated from the samples) with hostile numbers and expressions,
random options for ``verify derive project inspect symmetries groups``, and random arrays for
the Python API (non-finite, huge, tiny, complex, object, 0-d, 3-d); and, from
``fuzz/surfaces.py``, graph files (``.npz`` archives and edge lists with mutated headers,
indices and archives), nested combinators, specs at huge n, and file names with mathtext and
control characters into ``--plot`` and ``--format junit``.  A finding is any case that

* exits other than 0, 1, 2 or 3 (70 is "a bug in gdlcheck"), or prints a traceback;
* exits 2 without exactly one ``gdlcheck: error:`` line on standard error;
* raises anything but a ``GdlcheckError`` from the API, or returns JSON with NaN;
* writes JUnit XML that an XML parser refuses;
* runs past the time limit or runs out of memory.

Prints one JSON object: the number of cases, the cases per surface, the exit codes seen, the
findings (with the case, so it can be replayed) and how many findings of each class;
``--keep DIR`` also saves each finding's files.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import struct
import sys
import tempfile
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SAMPLES = os.path.join(ROOT, "samples")
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # fuzz/surfaces.py

NUMBERS = [
    "0",
    "1",
    "-1",
    "0.5",
    "2",
    "3",
    "1e308",
    "-1e308",
    "1.7976931348623157e308",
    "1e-320",
    "5e-324",
    "1e400",
    "nan",
    "inf",
    "-inf",
    "0x10",
    "1_000",
    "\u0661",
    "1/3",
    "1/0",
    "10**400",
    "10**5000",
    "2**-2000",
    "exp(1000)",
    "exp(exp(exp(20)))",
    "sin(10**30)",
    "sin(exp(exp(15)))",
    "sqrt(-1)",
    "log(0)",
    "log(-1)",
    "a",
    "b",
    "a*b",
    "sqrt(a)",
    "log(a)",
    "Abs(a*b)",
    "(a+b)**64",
    "((a+b)**64)**64",
    "a**b",
    "(17*a)**((17*a)**(17*a))",
    "tanh(exp(exp(100)))",
    "\u0430",
    "x\u03b1",
    "__import__('os')",
    "a.__class__",
    "(lambda: 1)()",
    "1j",
    "True",
    "None",
    "'s'",
    "a[0]",
    "9**9**9",
    "",
    " ",
    "#",
    "\x1b[31m",
]
GROUPS = [
    "cyclic",
    "dihedral",
    "symmetric",
    "alternating",
    "trivial",
    "translations",
    "p4",
    "p4m",
    "automorphisms",
    "generators",
    "cyclc",
    "",
    "CYCLIC",
    "shift",
    "torus",
    "permutation",
]
GENERATORS = [
    "(0 1)",
    "(0 1 2)",
    "[1, 0]",
    "[1, 0, 2]",
    "(0 5)",
    "[0, 0, 1]",
    "(0 1)(1 2)",
    "( 0)( 0)(",
    "[]",
    "()",
    "(0 1 2 3 4 5 6 7 8 9)",
    "[" + ", ".join(map(str, range(1, 100))) + ", 0]",
    "(0 300000000)",
    "x",
]
SIZES = [
    "0",
    "-1",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "8",
    "9",
    "16",
    "64",
    "100",
    "1000",
    "4096",
    "100000",
    "2000000",
    "1_0",
    "0x8",
    "\u0664",
    "abc",
    "1e3",
]
SHAPES = ["2x2", "3x3", "4x4", "2x3", "8x8", "0x2", "2x2x2", "x", "1000x1000", "4096x4096", "3", "2\u00d72"]
TOLS = ["0", "1e-9", "0.5", "1", "nan", "inf", "-1", "1e400", "0x1", "1_0"]
FORMATS = {
    "verify": ["text", "json"],
    "derive": ["text", "json", "latex", "csv", "npy"],
    "project": ["text", "json", "csv", "npy"],
    "inspect": ["text", "json"],
    "symmetries": ["text", "json"],
    "groups": ["text", "json"],
}


GOOD_GROUPS = ["cyclic", "dihedral", "symmetric", "alternating", "trivial", "p4", "translations"]
GOOD_SIZES = ["2", "3", "4", "5", "8", "16"]


def pick(rng: random.Random, good: list, bad: list, p_bad: float = 0.2):
    """Mostly a value that works (so the case reaches deep code), sometimes a hostile one."""
    return rng.choice(bad) if rng.random() < p_bad else rng.choice(good)


class CaseTimeout(BaseException):
    """The case ran past its time limit (BaseException: no handler of the code under test eats it)."""


# --------------------------------------------------------------------------- inputs


def matrix_text(rng: random.Random, sep: str) -> str:
    n = rng.choice([1, 2, 3, 4, 5, 8])
    cols = n if rng.random() < 0.8 else rng.choice([1, n + 1, max(1, n - 1)])
    rows = []
    base = [rng.choice(NUMBERS[:6]) for _ in range(n)]
    for i in range(n):
        row = [base[(i - j) % n] for j in range(cols)]  # circulant-ish, then spoiled
        for _ in range(rng.choice([0, 0, 0, 1, 2])):
            mild = NUMBERS[:12] + ["a", "b"]
            row[rng.randrange(cols)] = rng.choice(NUMBERS) if rng.random() < 0.5 else rng.choice(mild)
        rows.append(sep.join(row))
    if rng.random() < 0.1:
        rows.insert(rng.randrange(len(rows) + 1), "# a comment")
    return "\n".join(rows) + "\n"


def matrix_json(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.1:
        depth = rng.choice([3, 40, 600, 2000])
        return "[" * depth + "1" + "]" * depth
    n = rng.choice([1, 2, 3, 4])
    data = [
        [rng.choice([0, 1, 2, 1.5, -1, 1e308, 5e-324, "a", "b", "1/3", "nan", True, None, [1]]) for _ in range(n)]
        for _ in range(n)
    ]
    text = json.dumps(data)
    if kind < 0.2:
        text = text.replace("]", "", 1)
    if kind > 0.9:
        text = text.replace("1", "NaN", 1)
    return text


def npy_bytes(rng: random.Random) -> bytes:
    import io

    import numpy as np

    choice = rng.random()
    if choice < 0.15:
        header = rng.choice(
            [
                "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }",
                "{'descr': '|V2000000000', 'fortran_order': False, 'shape': (1, 1), }",
                "{'descr': '|O', 'fortran_order': False, 'shape': (2, 2), }",
                "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2), }",
                "{'descr': '<f8', 'shape': (2, 2), }",
                "garbage",
            ]
        )
        header = header + " " * max(0, 118 - len(header) - 10) + "\n"
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode() + bytes(rng.choice([0, 8, 32]))
    shape = rng.choice([(), (3,), (2, 2), (3, 3), (4, 4), (2, 3), (2, 2, 2), (0, 0), (1, 1)])
    dtype = rng.choice(["<f8", "<f4", "<i8", "<u1", "|b1", "<c16", "<f2", "<M8[s]"])
    values = rng.choice(
        [
            np.ones,
            np.zeros,
            lambda s: np.full(s, 1e308),
            lambda s: np.full(s, 5e-324),
            lambda s: np.full(s, np.nan),
            lambda s: np.arange(int(np.prod(s))).reshape(s),
        ]
    )(shape)
    buf = io.BytesIO()
    try:
        np.save(buf, np.asarray(values).astype(dtype))
    except (TypeError, ValueError):
        np.save(buf, np.ones((2, 2)))
    data = buf.getvalue()
    if rng.random() < 0.15:
        data = data[: rng.randrange(len(data))]
    return data


def spec_text(rng: random.Random) -> str:
    names = sorted(f for f in os.listdir(SAMPLES) if f.endswith(".yaml"))
    with open(os.path.join(SAMPLES, rng.choice(names)), encoding="utf-8") as fh:
        text = fh.read()
    tokens = (
        NUMBERS
        + GROUPS
        + [
            "{file: ../secret.txt}",
            "{file: /etc/passwd}",
            "{random: [100000, 100000]}",
            "!!python/object/apply:os.system ['true']",
            "*a",
            "&a",
            "n: 100000",
            "[",
            "]",
            "{",
            "}",
            ":",
            "-",
            "kind",
            "layer",
            "channels: 100000",
            "0x10",
            "1:30",
            "010",
        ]
    )
    parts = text.split(" ")
    for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
        op = rng.random()
        i = rng.randrange(len(parts))
        if op < 0.4:
            parts.insert(i, rng.choice(tokens))
        elif op < 0.7:
            parts[i] = rng.choice(tokens)
        else:
            del parts[i]
    return " ".join(parts)


def make_input(rng: random.Random, folder: str) -> str:
    kind = rng.choice(["csv", "csv", "tsv", "txt", "json", "npy", "yaml", "yaml", "yaml", "missing", "folder"])
    path = os.path.join(folder, f"input.{kind}")
    if kind == "csv":
        content = matrix_text(rng, ",").encode()
    elif kind == "tsv":
        content = matrix_text(rng, "\t").encode()
    elif kind == "txt":
        content = matrix_text(rng, " ").encode()
    elif kind == "json":
        content = matrix_json(rng).encode()
    elif kind == "npy":
        content = npy_bytes(rng)
    elif kind == "yaml":
        content = spec_text(rng).encode("utf-8", "surrogatepass")
    elif kind == "missing":
        return os.path.join(folder, "nothere.csv")
    else:
        return folder
    with open(path, "wb") as fh:
        fh.write(content)
    return path


# --------------------------------------------------------------------------- cases


def cli_case(rng: random.Random, folder: str) -> list[str]:
    command = rng.choice(["verify", "verify", "verify", "derive", "project", "inspect", "symmetries", "groups"])
    args = [command]
    if command in ("verify", "project", "inspect", "symmetries"):
        args.append(make_input(rng, folder))
    if command == "groups" and rng.random() < 0.8:
        args.append(pick(rng, GOOD_GROUPS, GROUPS))
    if command in ("verify", "derive", "project") and rng.random() < 0.9:
        args += ["-g", pick(rng, GOOD_GROUPS, GROUPS)]
    for _ in range(rng.choice([0, 1, 1, 2])):
        option = rng.random()
        if option < 0.3 and command != "symmetries":
            args += ["-n", pick(rng, GOOD_SIZES, SIZES)]
        elif option < 0.45 and command not in ("inspect", "symmetries"):
            args += ["--shape", pick(rng, ["2x2", "3x3", "4x4", "2x2x2"], SHAPES)]
        elif option < 0.6 and command not in ("inspect", "symmetries"):
            args += ["--generators", pick(rng, ["(0 1)", "(0 1 2)", "[1, 0, 2]"], GENERATORS)]
        elif option < 0.7 and command in ("verify", "symmetries"):
            args += ["--tol", pick(rng, ["0", "1e-9", "0.5"], TOLS)]
        elif option < 0.8 and command == "verify":
            args += ["--method", rng.choice(["auto", "exact", "numeric", "both", "x"])]
        elif option < 0.85 and command == "verify":
            args += ["--trials", rng.choice(["1", "2", "10000", "0", "1_0"])]
        elif option < 0.9 and command == "derive":
            args += [rng.choice(["--in-order", "--out-order"]), rng.choice(["0", "1", "2", "3", "4", "5"])]
        elif option < 0.95 and command in ("derive", "project"):
            args += [
                "-o",
                rng.choice(
                    [os.path.join(folder, "out"), "-", "--format", "/dev/full", os.path.join(folder, "no", "out")]
                ),
            ]
        elif command in ("verify", "derive", "project"):
            args += ["--graph", make_input(rng, folder)]
    if rng.random() < 0.8:
        args += ["--format", rng.choice(FORMATS[command])]
    return args


def run_cli(args: list[str]) -> dict:
    from click.testing import CliRunner

    from gdlcheck.cli import cli

    result = CliRunner().invoke(cli, args, catch_exceptions=True)
    problem = None
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        if isinstance(result.exception, CaseTimeout):
            raise result.exception
        problem = f"raised {type(result.exception).__name__}: {result.exception}"
    elif result.exit_code not in (0, 1, 2, 3, 74):  # 74: -o /dev/full, an output that cannot be written
        problem = f"exit {result.exit_code}: {result.stderr[-300:]}"
    elif "Traceback" in result.stderr or "internal error" in result.stderr:
        problem = f"traceback: {result.stderr[-300:]}"
    elif result.exit_code == 2 and not _one_error_line_each(result.stderr):
        problem = f"exit 2 without one error line: {result.stderr[-300:]!r}"
    elif result.exit_code != 2 and "gdlcheck: error" in result.stderr and "--format json" not in " ".join(args):
        problem = None  # several inputs may report an error and still exit 1
    if problem is None and "junit" in args and result.stdout.strip():
        import xml.etree.ElementTree as ET

        try:
            ET.fromstring(result.stdout.encode("utf-8", "surrogateescape"))
        except ET.ParseError as err:
            problem = f"JUnit XML not well-formed: {err}"
    return {"exit": result.exit_code, "problem": problem}


def _one_error_line_each(stderr: str) -> bool:
    """One error line; or, for a weights file, one for each tensor it could not check."""
    lines = stderr.splitlines(keepends=True)
    if len(lines) == 1:
        return stderr.startswith("gdlcheck: error: ") and stderr.endswith("\n")
    return len(lines) > 1 and all(line.startswith("gdlcheck: error: ") and ": tensor " in line for line in lines)


def run_graph_api(path: str) -> dict:
    """``gdlcheck.group("automorphisms", graph=path)``: a group, or a GdlcheckError of one line."""
    import gdlcheck
    from gdlcheck.errors import GdlcheckError

    try:
        gdlcheck.group("automorphisms", graph=path)
    except GdlcheckError as err:
        return {"exit": 2, "problem": f"a multi-line error: {str(err)[:200]!r}" if "\n" in str(err) else None}
    except CaseTimeout:
        raise
    except Exception as err:
        return {"exit": 70, "problem": f"group(graph=...) raised {type(err).__name__}: {err}"[:400]}
    return {"exit": 0, "problem": None}


def finding_class(problem: str) -> str:
    """The class of a finding, as the issues name them."""
    for prefix, name in (
        ("exit 70", "exit 70 (internal error)"),
        ("exit ", "other exit code"),
        ("traceback", "traceback"),
        ("exit 2 without", "exit 2 without one error line"),
        ("a multi-line", "exit 2 without one error line"),
        ("JUnit", "JUnit XML not well-formed"),
        ("ran past", "time limit"),
        ("out of memory", "memory"),
        ("raised", "API exception"),
    ):
        if problem.startswith(prefix) or (prefix == "raised" and " raised " in problem):
            return name
    return "harness"


def api_array(rng: random.Random):
    import numpy as np

    shape = rng.choice([(), (3,), (2, 2), (3, 3), (4, 4), (2, 3), (2, 2, 2), (0, 0)])
    size = int(np.prod(shape)) if shape else 1
    pool = [
        lambda: np.ones(shape),
        lambda: np.full(shape, np.nan),
        lambda: np.full(shape, np.inf),
        lambda: np.full(shape, 1e308),
        lambda: np.full(shape, 5e-324),
        lambda: np.ones(shape, dtype=complex),
        lambda: np.array([object()] * size, dtype=object).reshape(shape),
        lambda: np.arange(size).reshape(shape),
        lambda: np.ones(shape, dtype=bool),
        lambda: [["a", 1], [1, "a"]],
        lambda: [[1, 2], [3]],
        lambda: "not a matrix",
        lambda: None,
        lambda: {"layer": {"kind": "linear", "weight": [[1]]}},
        lambda: [[float("nan")]],
    ]
    return rng.choice(pool)()


def run_api(rng: random.Random, folder: str) -> dict:
    import numpy as np

    import gdlcheck
    from gdlcheck.errors import GdlcheckError

    what = rng.choice(["verify", "project", "find_symmetries", "derive", "verify_callable", "group", "inspect"])
    try:
        if what == "verify":
            out = gdlcheck.verify(
                api_array(rng),
                rng.choice(["cyclic", "symmetric", None, 3]),
                tol=rng.choice([1e-9, 0.0, float("nan"), -1.0, "x"]),
                trials=rng.choice([1, 2, 0]),
            )
        elif what == "project":
            out = gdlcheck.project(api_array(rng), rng.choice(["cyclic", "dihedral", None]))
        elif what == "find_symmetries":
            out = gdlcheck.find_symmetries(api_array(rng), tol=rng.choice([1e-9, 0.0, float("inf")]))
        elif what == "derive":
            g = gdlcheck.group(rng.choice(["cyclic", "symmetric", "trivial"]), n=rng.choice([1, 2, 3, 5]))
            out = gdlcheck.derive(g, rng.choice([0, 1, 2, 5, -1, 1.5]), rng.choice([0, 1, 2]))
        elif what == "verify_callable":
            value = api_array(rng)
            out = gdlcheck.verify_callable(
                lambda X, v=value: v if rng.random() < 0.5 else X * np.asarray(1.0),
                "cyclic",
                shape=rng.choice([(3, 2), (3,), (0, 1), "3x2", (2, 2, 2)]),
                trials=1,
            )
        elif what == "group":
            out = gdlcheck.group(
                rng.choice(GROUPS + [None, 3]),
                n=rng.choice([None, 0, 3, 2.5, 10**7]),
                generators=rng.choice([None, ["(0 1)"], "(0 1 2)", [[1, 0]], ["x"]]),
            )
        else:
            path = make_input(rng, folder)
            out = gdlcheck.inspect(path)
        if hasattr(out, "to_json"):
            json.dumps(out.to_json(), allow_nan=False)
    except GdlcheckError as err:
        if "\n" in str(err):
            return {"exit": 2, "problem": f"a multi-line error: {str(err)[:200]!r}"}
        return {"exit": 2, "problem": None}
    except CaseTimeout:
        raise
    except Exception as err:
        return {"exit": 70, "problem": f"{what} raised {type(err).__name__}: {err}"[:400]}
    return {"exit": 0, "problem": None}


# --------------------------------------------------------------------------- the run


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--case-seconds", type=float, default=60.0)
    parser.add_argument("--memory", type=int, default=4 << 30, help="address-space cap in bytes (whole run)")
    parser.add_argument("--keep", help="save each finding's files in this folder")
    parser.add_argument(
        "--surfaces",
        choices=("all", "classic", "new", "symbolic", "checkpoints"),
        default="all",
        help="classic: files, options and API values; new: the surfaces of fuzz/surfaces.py; "
        "all: both; symbolic: only its specs with free symbols; checkpoints: only weights "
        "files (fuzz/checkpoints.py)",
    )
    options = parser.parse_args(argv)
    from surfaces import surface_case, symbolic_case

    if options.surfaces == "symbolic":
        surface_case = symbolic_case  # noqa: F811
    if options.surfaces == "checkpoints":
        from checkpoints import checkpoint_case

        surface_case = checkpoint_case  # noqa: F811
    resource.setrlimit(resource.RLIMIT_AS, (options.memory, options.memory))

    def expired(signum, frame):
        raise CaseTimeout

    signal.signal(signal.SIGALRM, expired)
    import warnings

    warnings.simplefilter("ignore")
    exits: dict[str, int] = {}
    drawn: dict[str, int] = {}
    findings = []
    with tempfile.TemporaryDirectory() as top:
        with open(os.path.join(top, "secret.txt"), "w") as fh:
            fh.write("API_KEY=sk-0123456789\n")
        for case in range(options.cases):
            rng = random.Random(f"{options.seed}:{case}")
            folder = os.path.join(top, f"case{case}")
            os.makedirs(folder)
            new = options.surfaces in ("new", "symbolic", "checkpoints") or (
                options.surfaces == "all" and rng.random() < 0.3
            )
            api = not new and rng.random() < 0.25
            label = None
            surface = "api" if api else "command line"
            try:
                signal.setitimer(signal.ITIMER_REAL, options.case_seconds)
                if new:
                    surface, how, label = surface_case(rng, folder)
                    outcome = run_cli(label) if how == "cli" else run_graph_api(label)
                elif api:
                    label = "api"
                    outcome = run_api(rng, folder)
                else:
                    args = cli_case(rng, folder)
                    label = args
                    outcome = run_cli(args)
            except CaseTimeout:
                outcome = {"exit": "time limit", "problem": f"ran past {options.case_seconds:g} s"}
            except MemoryError:
                outcome = {"exit": "memory", "problem": "out of memory"}
            except Exception as err:  # a bug in the harness itself is a finding too
                outcome = {"exit": "harness", "problem": traceback.format_exception_only(err)[-1].strip()}
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            key = str(outcome["exit"])
            exits[key] = exits.get(key, 0) + 1
            drawn[surface] = drawn.get(surface, 0) + 1
            if outcome["problem"]:
                findings.append(
                    {
                        "case": case,
                        "seed": options.seed,
                        "surface": surface,
                        "run": label,
                        "class": finding_class(outcome["problem"]),
                        "problem": outcome["problem"],
                    }
                )
                if options.keep:
                    shutil.copytree(folder, os.path.join(options.keep, f"case{case}"), dirs_exist_ok=True)
            shutil.rmtree(folder, ignore_errors=True)
    classes: dict[str, int] = {}
    for finding in findings:
        classes[finding["class"]] = classes.get(finding["class"], 0) + 1
    print(
        json.dumps(
            {
                "cases": options.cases,
                "seed": options.seed,
                "surfaces": dict(sorted(drawn.items())),
                "exits": dict(sorted(exits.items())),
                "classes": dict(sorted(classes.items())),
                "findings": findings,
            },
            indent=1,
            ensure_ascii=True,
        )
    )
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
