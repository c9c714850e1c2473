"""Fresh buffers (``new_empty``, ``empty_like``, ``torch.empty``): their cells hold what the
allocator left, so a proof follows them only where every cell read was written first
(gdlcheck/code/prover/unwritten.py).  MFConv writes its output's rows into ``new_empty``, one degree class
at a time: a full cover is proved, an incomplete one, or a read before the write, is not."""

import pytest
import torch

import gdlcheck

N, D = 8, 3


def ring_and_chords():
    """Both directions of a ring and of two chords: degrees 2, 3 and 4 all occur."""
    i = torch.arange(N)
    src = torch.cat([i, torch.tensor([0, 0, 4])])
    dst = torch.cat([(i + 1) % N, torch.tensor([4, 2, 6])])
    return torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])


class ByDegree(torch.nn.Module):
    """MFConv's pattern: each node's row written by the weight of its degree class (degrees
    clamped to ``top``), classes ``0 .. last`` written."""

    def __init__(self, top=3, last=3):
        super().__init__()
        self.top, self.last = top, last
        self.w = torch.nn.Parameter(torch.randn(top + 1, D, D, dtype=torch.float64))

    def forward(self, x, edge_index):
        deg = torch.zeros(x.shape[0], dtype=torch.long).index_add_(0, edge_index[1], torch.ones_like(edge_index[1]))
        deg = deg.clamp(max=self.top)
        out = x.new_empty(x.shape[0], D)
        for i in range(self.last + 1):
            idx = (deg == i).nonzero().view(-1)
            out.index_copy_(0, idx, x.index_select(0, idx) @ self.w[i])
        return out


def verdict(fn, **kw):
    torch.manual_seed(0)
    r = gdlcheck.verify_callable(fn, "symmetric", shape=kw.pop("shape", (N, D)), method="exact", **kw)
    return r.verdict, " ".join(str(n.args.get("stop").step.label) for n in r.notes if n.what == "not_proven")


def test_rows_written_class_by_class_covering_every_node_are_proved():
    assert verdict(ByDegree(), graph=ring_and_chords())[0] == "holds"


def test_a_class_left_unwritten_stops_the_proof():
    got, why = verdict(ByDegree(top=4, last=3), graph=ring_and_chords())  # degree 4: node 0
    assert got == "inconclusive" and "memory no operation wrote" in why


class Module(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def _blocks(x):
    out = x.new_empty(x.shape[0], 2 * D)
    out[:, :D] = x
    out[:, D:] = x.tanh()
    return out


def _half(x):
    out = x.new_empty(x.shape[0], 2 * D)
    out[:, :D] = x
    return out


def _read_first(x):
    out = torch.empty_like(x)
    y = out + x  # reads the buffer before anything is written into it
    out.copy_(x)
    return y - out


def _rows_at_a_constant_index(x):
    out = torch.empty(x.shape, dtype=x.dtype)
    out[torch.arange(x.shape[0])] = 2 * x
    return out


@pytest.mark.parametrize(
    "fn, holds", [(_blocks, True), (_half, False), (_read_first, False), (_rows_at_a_constant_index, True)]
)
def test_a_buffer_is_proved_only_where_every_cell_read_was_written(fn, holds):
    got, why = verdict(Module(fn))
    assert (got == "holds") == holds, why
    if not holds:
        assert "memory no operation wrote" in why


def test_an_empty_buffer_returned_is_never_invariant():
    # its cells differ between calls: it was a constant, proved invariant, before
    got, why = verdict(Module(lambda x: torch.empty(4, dtype=x.dtype) + 0 * x.sum()), expect="invariant")
    assert got != "holds"


def test_a_value_of_an_unwritten_buffer_read_into_python_stops_the_proof():
    def fn(x):
        t = torch.empty(1, dtype=x.dtype)
        return x * 2 if t.item() > 0 else x * 2

    got, why = verdict(Module(fn))
    assert got == "inconclusive" and "memory no operation wrote" in why
