"""Third soundness hunt: a count of the points computed and read in another thread (one the code
starts, or a pool made before the proof).  A dispatch mode is its thread's own, so the walk saw
none of that thread's operations, and the value readers acted for the proof's thread only: the
count came back as a Python number, the moved call read the same, and a branch on it was proved.
A thread other than the proof's that reads a value the walk does not know now stops the proof."""

import concurrent.futures
import threading

import pytest

torch = pytest.importorskip("torch")

from hunt3_check import METHODS, SIZES, a_zero_breaks_the_symmetry, verdict  # noqa: E402

import gdlcheck  # noqa: E402

POOL = concurrent.futures.ThreadPoolExecutor(1)
POOL.submit(int, 0).result()  # its worker thread is running before any proof


def count(x):
    return (x[:, 0] == 0).long().sum()


def in_a_thread(work):
    box = []
    thread = threading.Thread(target=lambda: box.append(work()))
    thread.start()
    thread.join()
    return box[0]


RUN = {
    "a thread, int": lambda x: in_a_thread(lambda: int(count(x))),
    "a thread, item": lambda x: in_a_thread(lambda: count(x).item()),
    "a thread, tolist": lambda x: in_a_thread(lambda: count(x).tolist()),
    "a pool made before, int": lambda x: POOL.submit(lambda: int(count(x))).result(),
}


class CountsInAThread(torch.nn.Module):
    def __init__(self, run):
        super().__init__()
        self.run = run

    def forward(self, x):
        return x if self.run(x) == 0 else x.flip(0)


@pytest.mark.parametrize("run", RUN.values(), ids=RUN.keys())
def test_a_point_with_a_zero_breaks_the_symmetry(run):
    assert a_zero_breaks_the_symmetry(CountsInAThread(run))


@pytest.mark.parametrize("size", SIZES, ids=str)
@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("run", RUN.values(), ids=RUN.keys())
def test_a_value_read_in_another_thread_is_never_proved(run, method, size):
    assert verdict(CountsInAThread(run), size, method) != "holds"


def test_the_note_names_the_other_thread():
    result = gdlcheck.verify_callable(CountsInAThread(RUN["a thread, item"]), "symmetric", shape=(8, 3), method="exact")
    assert "another thread reads a value the walk does not know" in str(result.proof.stops)


class ReadsItsBufferInAThread(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale", torch.tensor(2.0, dtype=torch.float64))

    def forward(self, x):
        return x * in_a_thread(lambda: self.scale.item())


def test_a_buffer_read_in_another_thread_stays_proved():
    assert verdict(ReadsItsBufferInAThread(), (8, 3), "exact") == "holds"
