"""Issue 23, point 5: the tracer is bounded.  Each module is checked from the command line
(``verify --callable``) under a memory cap and a time limit (the limit only guards: no test here
asserts a duration), and gets a verdict or one line with exit 2."""

import textwrap

import pytest

pytest.importorskip("torch")

from tests.test_budgets import capped, one_line  # noqa: E402

pytestmark = pytest.mark.slow

MODELS = textwrap.dedent("""
    import torch

    def long():              # 5,000 layers: proved, its call within the operations budget
        return torch.nn.Sequential(*[torch.nn.ReLU() for _ in range(5000)])

    def wider():             # 50,000 layers: past the budget of submodules, refused before any call
        return torch.nn.Sequential(*[torch.nn.Tanh() for _ in range(50000)])

    def nested():            # 3,000 Sequentials in one another: past the nesting budget
        m = torch.nn.ReLU()
        for _ in range(3000):
            m = torch.nn.Sequential(m)
        return m

    class Scalars(torch.nn.Module):   # 20,000 scalar parameters in a Python loop
        def __init__(self):
            super().__init__()
            self.ps = torch.nn.ParameterList([torch.nn.Parameter(torch.tensor(0.5)) for _ in range(20000)])

        def forward(self, x):
            for p in self.ps:
                x = x * p
            return x

    def scalars():
        return Scalars()

    class Loop(torch.nn.Module):      # 60,000 operations in one call: past the operations budget
        def forward(self, x):
            for _ in range(60000):
                x = x + 0.0
            return x

    def loop():
        return Loop()
""")


@pytest.fixture
def models(tmp_path):
    (tmp_path / "models.py").write_text(MODELS)
    return tmp_path


def run(folder, target):
    return capped(
        [
            "verify",
            "--callable",
            f"models:{target}",
            "--input-shape",
            "6x3",
            "--group",
            "symmetric",
            "--method",
            "exact",
            "--format",
            "json",
        ],
        folder,
        memory=3 << 30,
        timeout=600,
    )


def test_a_long_sequential_is_proved_within_the_budget(models):
    result = run(models, "long")
    assert result.returncode == 0 and '"verdict": "holds"' in result.stdout, result.stderr


def test_many_scalar_parameters_in_a_loop_are_proved(models):
    result = run(models, "scalars")
    assert result.returncode == 0 and '"verdict": "holds"' in result.stdout, result.stderr


@pytest.mark.parametrize(
    "target, fragment", [("wider", "more than 20,000 submodules"), ("nested", "nested more than 200 deep")]
)
def test_a_module_tree_past_the_budget_is_one_line(models, target, fragment):
    one_line(run(models, target), 2, fragment)


def test_a_call_past_the_operations_budget_stops_the_proof(models):
    result = run(models, "loop")
    assert result.returncode == 3 and "the tracer's budget" in result.stdout, (result.stdout[-400:], result.stderr)


def test_the_room_for_a_deep_tree_is_kept_while_any_check_needs_it():
    """``room_for`` raises the process's recursion limit: a check that ends while another (in
    another thread) still runs must not take the other's room away, and the limit found first
    comes back when the last one ends, whichever order they end in."""
    import sys
    import threading

    from gdlcheck.code.torch_bridge import room_for

    before = sys.getrecursionlimit()
    deep_in, shallow_out, limits = threading.Event(), threading.Event(), {}

    def deep():
        with room_for(400):
            deep_in.set()
            shallow_out.wait(30)
            limits["deep, after the shallow one ended"] = sys.getrecursionlimit()

    with room_for(10):  # opened first, ended first
        worker = threading.Thread(target=deep)
        worker.start()
        deep_in.wait(30)
        limits["both open"] = sys.getrecursionlimit()
    shallow_out.set()
    worker.join(30)
    assert limits["both open"] >= 400 * 20 and limits["deep, after the shallow one ended"] >= 400 * 20
    assert sys.getrecursionlimit() == before
