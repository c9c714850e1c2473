"""The red-team run over random torch modules: deep, wide, with many parameters, mixing what keeps
a permutation symmetry with what breaks it, wrapped in the Python a symbolic tracer misreads
(fuzz/modulegen.py).  Derandomized; each case is a process under a memory cap and a time limit.

    python fuzz/modules.py --cases 24 --seed 0 --quick     # what CI runs (tests/test_fuzz_modules.py)
    python fuzz/modules.py --cases 250 --seed 1 --log --keep found/   # a run by hand (10-20 min)
    python fuzz/modules.py --seed 1 --only 161               # replay one case: its module and output

Each case writes its module's code to a ``.py`` file and checks it one of three ways: ``gdlcheck
verify --callable file.py:NAME`` as its own Python process, the same command line run in a fork
of this process (gdlcheck already imported, which makes a case cheap), or
``gdlcheck.verify_callable`` in a fork.  A finding is a case that

* exits 70 or prints a traceback ("exit 70 (internal error)"), or exits otherwise than 0-3;
* exits 2 without exactly one ``gdlcheck: error:`` line on standard error;
* runs past its time limit, or out of memory (a MemoryError, or a process killed by a signal);
* is **a wrong holds**: the verdict is ``holds`` with a proof (an ``exact`` check passed) and
  the run's own float64 check (fuzz/numeric_check.py, not gdlcheck) finds ``f(g x) != g f(x)``.

Prints one JSON object: the cases, the cases per surface and per way, the exit codes and verdicts
seen, the findings (each with its case, to replay) and how many of each class, and the
``fails`` verdicts the numeric check could not confirm (worth a look, not findings: the trials'
inputs are not the check's).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # fuzz/modulegen.py, numeric_check.py

EXIT_OF_VERDICT = {"holds": 0, "holds_numerically": 0, "fails": 1, "inconclusive": 3}
MEMORY_EXIT = 99  # a forked case that ran out of memory
WRONG = 1e-6  # the numeric check's relative error that refutes a proof (float64 rounding is ~1e-15)


def command_line(module, path: str, method: str) -> list[str]:
    args = [
        "verify",
        "--callable",
        f"{path}:{module.name}",
        "--input-shape",
        "x".join(map(str, module.shape)),
        "--group",
        module.group,
        "--method",
        method,
        "--format",
        "json",
    ]
    if method != "exact":  # exact runs no trials, and says so for --trials
        args += ["--trials", "2"]
    if module.batched:
        args += ["--batch-axes", "0"]
    if module.expect != "equivariant":
        args += ["--expect", module.expect]
    return args


# --------------------------------------------------------------------------- one process per case


def _limit(memory: int):
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


def forked(job, folder: str, seconds: float, memory: int, name: str = "case") -> dict:
    """Run ``job()`` (returns an exit code) in a child process under the cap, its standard output
    and error in ``folder/NAME.stdout`` and ``.stderr``; the parent waits at most ``seconds``."""
    out, err = os.path.join(folder, f"{name}.stdout"), os.path.join(folder, f"{name}.stderr")
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 70
        try:
            _limit(memory)
            os.chdir(folder)
            for fd, name in ((1, out), (2, err)):
                target = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
                os.dup2(target, fd)
                os.close(target)
            code = job()
        except MemoryError:
            code = MEMORY_EXIT
        except BaseException:
            traceback.print_exc()
            code = 70
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(code)
    deadline = time.monotonic() + seconds
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            return {"exit": "time limit", "stdout": "", "stderr": ""}
        time.sleep(0.02)
    code = os.waitstatus_to_exitcode(status)
    return {"exit": code, "stdout": _read(out), "stderr": _read(err)}


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return ""


def cli_job(args: list[str]):
    def job() -> int:
        from gdlcheck.cli import cli

        try:
            cli.main(args=args, prog_name="gdlcheck")
        except SystemExit as stop:
            return stop.code if isinstance(stop.code, int) else 0
        return 0

    return job


def api_job(module, path: str, method: str):
    """``gdlcheck.verify_callable`` on the built module: the JSON on standard output and the
    verdict's exit code, or one line and 2 for a GdlcheckError (any other exception is 70)."""

    def job() -> int:
        from numeric_check import build_raw

        import gdlcheck
        from gdlcheck.errors import GdlcheckError

        layer = build_raw(path, module.name)
        try:
            result = gdlcheck.verify_callable(
                layer,
                module.group,
                shape=module.shape,
                expect=module.expect,
                trials=1 if method == "exact" else 2,
                method=method,
                batch_axes=0 if module.batched else None,
            )
            print(json.dumps(result.to_json()))
        except GdlcheckError as err:
            print(f"gdlcheck: error: {err}", file=sys.stderr)
            return 2
        return EXIT_OF_VERDICT.get(result.verdict, 70)

    return job


def check_job(module, path: str, seed: int, box: str):
    def job() -> int:
        from numeric_check import worst_error

        error = worst_error(
            path, module.name, module.shape, module.points_axis, module.group, module.expect, seed, module.stateful
        )
        with open(box, "w") as fh:
            json.dump({"error": error}, fh)
        return 0

    return job


def executed(args: list[str], folder: str, seconds: float, memory: int) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(PYTHONPATH=ROOT, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gdlcheck", *args],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=seconds,
            preexec_fn=lambda: _limit(memory),
        )
    except subprocess.TimeoutExpired:
        return {"exit": "time limit", "stdout": "", "stderr": ""}
    return {"exit": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


# --------------------------------------------------------------------------- judging a case


def problem_of(outcome: dict) -> tuple[str, str] | None:
    """The class and text of what went wrong in the run itself, or None."""
    code, err = outcome["exit"], outcome["stderr"]
    if code == "time limit":
        return "time limit", "ran past the time limit"
    if code == MEMORY_EXIT or "MemoryError" in err or "can't allocate memory" in err:
        return "memory", f"out of memory: {err[-300:]}"
    if isinstance(code, int) and code < 0:
        return "memory", f"killed by signal {-code} (under the memory cap): {err[-300:]}"
    if code == 70 or "Traceback" in err or "internal error" in err:
        return "exit 70 (internal error)", f"exit {code}: {err[-600:]}"
    if code not in (0, 1, 2, 3):
        return "other exit code", f"exit {code}: {err[-300:]}"
    if code == 2 and (not err.startswith("gdlcheck: error: ") or err.count("\n") != 1):
        return "exit 2 without one error line", repr(err[-400:])
    return None


def proved_holds(report: dict) -> bool:
    return report.get("verdict") == "holds" and any(
        c.get("method") == "exact" and c.get("passed") for c in report.get("checks", [])
    )


def run_case(
    module, way: str, method: str, folder: str, seconds: float, memory: int, seed: int, show: bool = False
) -> dict:
    path = os.path.join(folder, "fuzzed.py")
    with open(path, "w") as fh:
        fh.write(module.text)
    args = command_line(module, path, method)
    if way == "exec":
        outcome = executed(args, folder, seconds, memory)
        for stream in ("stdout", "stderr"):
            with open(os.path.join(folder, f"case.{stream}"), "w") as fh:
                fh.write(outcome[stream])
    else:
        outcome = forked(cli_job(args) if way == "cli" else api_job(module, path, method), folder, seconds, memory)
    if show:
        print(module.text, args, json.dumps(outcome, indent=1), sep="\n", file=sys.stderr)
    found = problem_of(outcome)
    record = {
        "exit": outcome["exit"],
        "verdict": None,
        "class": None,
        "problem": None,
        "numeric": None,
        "said": outcome["stderr"].strip().splitlines()[-1][:160] if outcome["stderr"].strip() else "",
    }
    if found:
        record["class"], record["problem"] = found
        return record
    if outcome["exit"] == 2:
        return record
    try:
        report = json.loads(outcome["stdout"])
    except ValueError:
        record["class"], record["problem"] = "harness", f"no JSON on standard output: {outcome['stdout'][-200:]!r}"
        return record
    record["verdict"] = report.get("verdict")
    if proved_holds(report) or record["verdict"] == "fails":
        box = os.path.join(folder, "numeric.json")
        checked = forked(check_job(module, path, seed, box), folder, seconds, memory, name="numeric")
        try:
            with open(box) as fh:
                record["numeric"] = json.load(fh)["error"]
        except (OSError, ValueError, KeyError):
            record["numeric"] = f"the numeric check did not finish: exit {checked['exit']} {checked['stderr'][-200:]}"
        error = record["numeric"]
        if proved_holds(report) and isinstance(error, str):  # a proof nothing checked: the harness's fault
            record["class"], record["problem"] = "harness", error
        elif proved_holds(report) and isinstance(error, float) and error > WRONG:
            record["class"] = "wrong holds"
            record["problem"] = f"holds with a proof, but max |f(gx) - g f(x)| / max = {error:.3g} in float64"
    return record


# --------------------------------------------------------------------------- the run


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=24)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--case-seconds", type=float, default=180.0)
    parser.add_argument("--memory", type=int, default=4 << 30, help="address-space cap in bytes (each case)")
    parser.add_argument("--keep", help="save each finding's module and output in this folder")
    parser.add_argument("--log", action="store_true", help="one line per case on standard error")
    parser.add_argument("--only", type=int, help="replay this case alone, its module and report on standard error")
    parser.add_argument(
        "--kinds",
        default="mixed,tricks,deep,long,operations,parameters,wide",
        help="the kinds of module to draw, comma-separated (fuzz/modulegen.py's KINDS)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="CI: no case in its own Python process, and the structural cases at their cheap sizes",
    )
    options = parser.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    import warnings

    warnings.simplefilter("ignore")
    import torch  # noqa: F401  (imported once here: every forked case starts with it)
    import torch._dynamo  # noqa: F401  (what a dispatch mode imports on its first use: seconds)
    from modulegen import random_module

    import gdlcheck.cli  # noqa: F401
    import gdlcheck.code.prover.rules  # noqa: F401

    tally = {"surfaces": {}, "ways": {}, "exits": {}, "verdicts": {}}
    findings, unconfirmed = [], []
    with tempfile.TemporaryDirectory() as top:
        for case in range(options.cases) if options.only is None else [options.only]:
            rng = random.Random(f"modules:{options.seed}:{case}")
            module = random_module(rng, quick=options.quick, kinds=options.kinds.split(","))
            way = rng.choices(["cli", "api", "exec"], weights=(10, 9, 0 if options.quick else 1))[0]
            method = rng.choices(["exact", "auto", "numeric", "both"], weights=(5, 3, 1, 1))[0]
            folder = os.path.join(top, f"case{case}")
            os.makedirs(folder)
            started = time.monotonic()
            try:
                record = run_case(
                    module,
                    way,
                    method,
                    folder,
                    options.case_seconds,
                    options.memory,
                    seed=options.seed * 100003 + case,
                    show=options.only is not None,
                )
            except Exception as err:  # a bug of the harness is a finding too
                record = {
                    "exit": "harness",
                    "verdict": None,
                    "class": "harness",
                    "problem": traceback.format_exception_only(err)[-1].strip(),
                    "numeric": None,
                }
            for key, value in (
                ("surfaces", module.surface),
                ("ways", way),
                ("exits", str(record["exit"])),
                ("verdicts", str(record["verdict"])),
            ):
                tally[key][value] = tally[key].get(value, 0) + 1
            label = {
                "case": case,
                "seed": options.seed,
                "surface": module.surface,
                "way": way,
                "method": method,
                "shape": list(module.shape),
                "group": module.group,
                "expect": module.expect,
            }
            if options.log:
                print(
                    f"case {case} ({time.monotonic() - started:.1f} s) {module.surface} {way} {method} "
                    f"{module.group} {module.shape}: exit "
                    f"{record['exit']} {record['verdict']} numeric={record['numeric']} {record['said']}",
                    file=sys.stderr,
                    flush=True,
                )
            odd = (
                not record["class"]
                and record["verdict"] == "fails"
                and isinstance(record["numeric"], float)
                and record["numeric"] < 1e-12
                and not module.stateful
            )  # a counter's calls differ: fails is right
            if record["class"]:
                findings.append({**label, "class": record["class"], "problem": record["problem"]})
            elif odd:
                unconfirmed.append({**label, "numeric": record["numeric"]})
            if options.keep and (record["class"] or odd):
                shutil.copytree(
                    folder, os.path.join(options.keep, f"seed{options.seed}-case{case}"), dirs_exist_ok=True
                )
            shutil.rmtree(folder, ignore_errors=True)
    classes: dict[str, int] = {}
    for finding in findings:
        classes[finding["class"]] = classes.get(finding["class"], 0) + 1
    print(
        json.dumps(
            {
                "cases": options.cases,
                "seed": options.seed,
                **{k: dict(sorted(v.items())) for k, v in tally.items()},
                "classes": dict(sorted(classes.items())),
                "findings": findings,
                "fails the numeric check did not confirm": unconfirmed,
            },
            indent=1,
        )
    )
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
