"""--plot FILE: what is drawn (exactly, as arrays), the files written, and the README's picture."""

import hashlib
import re
import sys

import matplotlib.image
import numpy as np
import pytest

import gdlcheck
from gdlcheck.output import plot, plot_colours, plot_pictures
from tests.conftest import ROOT, SAMPLES


def _lab(rgb):
    """sRGB -> CIELAB (D65), enough to measure how far apart two colours look."""
    rgb = np.asarray(rgb, dtype=float)
    lin = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    M = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = lin @ M.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], axis=-1)


# --------------------------------------------------------------------------- colours


def test_neighbouring_orbits_get_colours_far_apart():
    lab = _lab(plot_colours.colours(np.arange(5000)))
    step = np.linalg.norm(lab[1:] - lab[:-1], axis=-1)
    # CIELAB distance 2.3 is "just noticeable"; blue against cyan is about 35
    assert step.min() > 30, step.argmin()


def test_the_first_ten_colours_are_pairwise_distinct():
    lab = _lab(plot_colours.colours(np.arange(10)))
    d = np.linalg.norm(lab[:, None] - lab[None], axis=-1)
    np.fill_diagonal(d, np.inf)
    assert d.min() > 25


def test_colours_are_a_function_of_the_orbit_only():
    k = np.array([[3, 700], [3, 25]])
    c = plot_colours.colours(k)
    assert c.shape == (2, 2, 3) and np.array_equal(c[0, 0], c[1, 0]) and np.all((0 <= c) & (c <= 1))


# --------------------------------------------------------------------------- what is drawn


def test_derive_picture_draws_every_cell_of_the_pattern():
    d = gdlcheck.derive(gdlcheck.group("cyclic", n=6))
    pic = plot_pictures.derive_picture(d)
    (panel,) = pic.panels
    i, j = np.indices((6, 6))
    assert panel.kind == "orbits" and np.array_equal(panel.data, (i - j) % 6) and panel.step == 1
    assert pic.legend == [(k, f"theta_{k}") for k in range(6)]


def test_grid_groups_also_draw_the_kernel_offsets_centred_on_zero():
    d = gdlcheck.derive(gdlcheck.group("p4", shape="5x5"))
    heat, offsets = plot_pictures.derive_picture(d).panels
    assert np.array_equal(heat.data, d.pattern)
    assert offsets.data.shape == (5, 5) and offsets.origin == (-2, -2)
    # the map's cell (r, c) is the offset (r - 2, c - 2): the orbit of W[offset, 0]
    for r in range(5):
        for c in range(5):
            a, b = (r - 2) % 5, (c - 2) % 5
            assert offsets.data[r, c] == d.pattern[a * 5 + b, 0]
            assert offsets.labels[r, c] == d.name_of(int(offsets.data[r, c]))
    # p4: the map is unchanged by a quarter turn about offset 0
    assert np.array_equal(np.rot90(offsets.data), offsets.data)
    assert offsets.data[2, 2] == d.pattern[0, 0]


def test_a_large_closed_form_is_drawn_by_blocks_without_its_pattern():
    n = 5000
    d = gdlcheck.derive(gdlcheck.group("cyclic", n=n))
    (panel,) = plot_pictures.derive_picture(d).panels
    step = panel.step
    assert step == 5 and panel.data.shape == (1000, 1000) and "every 5th row and column" in panel.title
    rows = np.arange(0, n, step)
    assert np.array_equal(panel.data, (rows[:, None] - rows[None, :]) % n)
    assert d._pattern is None  # the n x n pattern was never built


def test_higher_orders_draw_the_matrix_of_the_map():
    d = gdlcheck.derive(gdlcheck.group("symmetric", n=3), in_order=2, out_order=2)
    (panel,) = plot_pictures.derive_picture(d).panels
    assert np.array_equal(panel.data, d.pattern.reshape(9, 9))


def test_matrix_picture_draws_the_matrix_its_projection_and_the_difference():
    W = np.arange(16.0).reshape(4, 4)
    projected = gdlcheck.project(W, "cyclic")
    pic = plot_pictures.matrix_picture("w.csv", W, projected.matrix, projected.group, projected.distance, "FAIL")
    a, b, c = pic.panels
    assert np.array_equal(a.data, W) and np.array_equal(b.data, projected.matrix)
    assert np.array_equal(c.data, np.abs(W - projected.matrix)) and pic.title.startswith("FAIL: w.csv against cyclic")
    assert c.kind == "magnitude" and c.step == 1


# --------------------------------------------------------------------------- the difference panel finds the defect


def _circulant(n: int, seed: int = 0) -> np.ndarray:
    i = np.arange(n)
    return np.random.default_rng(seed).standard_normal(n)[(i[:, None] - i[None, :]) % n]


def test_a_single_spike_in_a_2048_matrix_is_in_the_drawn_difference_panel():
    n, (i, j) = 2048, (1001, 37)  # an odd row: sampling every 2nd row dropped it
    W = _circulant(n)
    W[i, j] += 0.5
    projected = gdlcheck.project(W, "cyclic")
    values, _, diff = plot_pictures.matrix_picture(
        "w.npy", W, projected.matrix, projected.group, projected.distance
    ).panels
    assert "every 2nd row and column" in values.title and i not in range(0, n, values.step)
    step = diff.step
    assert diff.data.shape == (n // step, n // step) and "largest of each 8 x 8 block" in diff.title
    spike = abs(W[i, j] - projected.matrix[i, j])
    assert diff.data[i // step, j // step] == spike == diff.data.max()
    # everything else is the spike's share of its diagonal's mean, 0.5 / 2048
    others = np.delete(diff.data.ravel(), (i // step) * diff.data.shape[1] + j // step)
    assert others.max() < spike / 1000
    assert diff.marks[0] == (i, j, "largest") and f"at W[{i}, {j}]" in diff.title


def test_pooling_keeps_the_largest_entry_of_every_block_at_a_size_that_does_not_divide():
    n = 1000
    rng = np.random.default_rng(3)
    W, P = rng.standard_normal((n, n)), rng.standard_normal((n, n))
    panel = plot_pictures.difference_panel(W, P, step=4)
    D = np.abs(W - P)
    expected = np.array([[D[r : r + 4, c : c + 4].max() for c in range(0, n, 4)] for r in range(0, n, 4)])
    assert np.array_equal(panel.data, expected)
    odd = plot_pictures.difference_panel(W[:999, :999], P[:999, :999], step=4)  # a last block of 3 rows and columns
    assert odd.data.shape == (250, 250) and odd.data[-1, -1] == D[996:999, 996:999].max()


def test_the_colour_bar_marks_the_tolerance_and_the_counterexample_is_ringed():
    W = np.load(SAMPLES / "trained.npy")
    result = gdlcheck.verify(W, "cyclic")
    cells = plot_pictures.counterexample_cells(result)
    # the report's counterexample, the first differing pair (docs/design.md section 5): W[1, 1] but W[0, 0]
    worst = {(1, 1), (0, 0)}
    assert set(cells) == worst
    projected = gdlcheck.project(W, "cyclic")
    diff = plot_pictures.matrix_picture(
        "t.npy", W, projected.matrix, projected.group, projected.distance, tol=1e-9, cells=cells
    ).panels[2]
    assert diff.levels == [(1e-9 * np.abs(W).max(), "--tol 1e-09 x max|W|")]
    # both cells are ringed (one may be ringed as a largest entry of |W - P| as well)
    assert set() < {(i, j) for i, j, what in diff.marks if what == "counterexample"} <= worst
    assert worst <= {(i, j) for i, j, _ in diff.marks}
    assert "blue: counterexample" in diff.xlabel and "--tol 1e-09 x max|W|" in diff.colorbar
    fig = result.plot()  # the same from Python, drawn: the third panel's rings are there
    assert len(fig.axes[2].lines) == len(result.plot().axes[2].lines) >= 3


# --------------------------------------------------------------------------- large and tuple patterns


def test_a_large_circulant_is_drawn_on_a_cyclic_map_over_its_offset():
    d = gdlcheck.derive(gdlcheck.group("cyclic", n=200))
    (panel,) = plot_pictures.derive_picture(d).panels
    assert panel.cmap == "twilight" and panel.colorbar == "offset (i - j) mod n" and panel.vmax == 199
    i = np.arange(200)
    assert np.array_equal(panel.data, (i[:, None] - i[None, :]) % 200)
    many = plot_pictures.derive_picture(gdlcheck.derive(gdlcheck.group("dihedral", n=64))).panels[0]
    assert many.cmap == "turbo" and many.colorbar == "orbit"  # one pass through the hues, no repeats
    few = plot_pictures.derive_picture(gdlcheck.derive(gdlcheck.group("cyclic", n=12))).panels[0]
    assert few.cmap is None  # Kelly's distinct colours


def test_a_2_to_2_pattern_gets_tuple_ticks_block_lines_and_partitions_in_its_legend():
    d = gdlcheck.derive(gdlcheck.group("symmetric", n=4), in_order=2, out_order=2)
    pic = plot_pictures.derive_picture(d)
    (panel,) = pic.panels
    assert panel.grid == 4 and panel.ticks == [(0, "(0, 0)"), (4, "(1, 0)"), (8, "(2, 0)"), (12, "(3, 0)")]
    names = dict(pic.legend)
    assert len(names) == 15 and all(": " in name for name in names.values())
    # the orbit of the diagonal entry T[(0, 0), (0, 0)] is the partition with every index equal
    assert names[int(d.pattern[0, 0, 0, 0])].endswith("i1 = i2 = j1 = j2")


def test_the_note_sits_below_the_axes_labels_and_titles_fit_the_figure():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    def drawn(picture):
        fig = plot.figure(picture)
        FigureCanvasAgg(fig).draw()
        return fig, fig.canvas.get_renderer()

    d = gdlcheck.derive(gdlcheck.group("cyclic", n=64))
    fig, renderer = drawn(plot_pictures.derive_picture(d))
    note = fig._supxlabel.get_window_extent(renderer)
    label = fig.axes[0].xaxis.label.get_window_extent(renderer)
    assert "too many to list" in fig._supxlabel.get_text()
    assert note.y1 <= label.y0  # below, never over, the axis label
    figure_box = fig.bbox
    for text in [fig._suptitle, *(ax.title for ax in fig.axes)]:
        box = text.get_window_extent(renderer)
        assert figure_box.x0 <= box.x0 and box.x1 <= figure_box.x1, text.get_text()
    W = _circulant(8)
    long = plot_pictures.matrix_picture("MODEL WEIGHTS " * 16 + "w.npy", W, W, gdlcheck.group("cyclic", n=8), 0.0)
    fig, renderer = drawn(long)
    box = fig._suptitle.get_window_extent(renderer)
    assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1


# --------------------------------------------------------------------------- files


@pytest.mark.parametrize("ext, magic", [("png", b"\x89PNG"), ("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_derive_plot_writes_the_format_of_the_extension_and_the_same_bytes_twice(run, tmp_path, ext, magic):
    first, second = tmp_path / f"a.{ext}", tmp_path / f"b.{ext}"
    for target in (first, second):
        result = run(["derive", "-g", "dihedral", "-n", "7", "--plot", target])
        assert result.exit_code == 0, result.stderr
    data = first.read_bytes()
    assert data.startswith(magic)
    assert hashlib.sha256(data).digest() == hashlib.sha256(second.read_bytes()).digest()
    if ext == "svg":
        text = data.decode()
        assert "@font-face" not in text and "fonts.googleapis" not in text and "<text" not in text  # glyphs as paths


def test_derive_plot_goes_with_every_format(run, tmp_path):
    target = tmp_path / "p.png"
    result = run(["derive", "-g", "cyclic", "-n", "4", "--format", "csv", "--plot", target])
    assert result.exit_code == 0 and result.stdout == "0,3,2,1\n1,0,3,2\n2,1,0,3\n3,2,1,0\n"
    assert matplotlib.image.imread(target).shape[2] == 4


def test_plot_refuses_an_extension_it_cannot_write(run, tmp_path):
    result = run(["derive", "-g", "cyclic", "-n", "4", "--plot", tmp_path / "p.jpg"])
    assert result.exit_code == 2
    assert "--plot FILE writes .png, .svg or .pdf (told by the extension), got 'p.jpg'" in result.stderr
    assert result.stdout == ""  # refused before any work


def test_plot_without_matplotlib_names_the_extra(run, tmp_path, monkeypatch):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # "import matplotlib" raises ImportError
    result = run(["derive", "-g", "cyclic", "-n", "4", "--plot", tmp_path / "p.png"])
    assert result.exit_code == 2
    assert result.stderr == (
        "gdlcheck: error: --plot draws with matplotlib, which is not installed: pip install 'gdlcheck[plot]'\n"
    )


def test_plot_to_an_unwritable_place_is_an_input_error(run, tmp_path):
    result = run(["derive", "-g", "cyclic", "-n", "4", "--plot", tmp_path / "no" / "such" / "p.png"])
    # a missing folder is refused before the work (tests/test_reports.py), so nothing is printed
    assert result.exit_code == 2 and "does not exist; create it first" in result.stderr and result.stdout == ""
    folder = tmp_path / "p.png"
    folder.mkdir()  # the picture's name is a folder: refused as an input error, one line
    result = run(["derive", "-g", "cyclic", "-n", "4", "--plot", folder])
    assert result.exit_code == 2 and "is a directory" in result.stderr and result.stderr.count("\n") == 1


def test_verify_plot_of_a_matrix(run, tmp_path):
    target = tmp_path / "v.png"
    result = run(["verify", SAMPLES / "dense.csv", "-g", "cyclic", "--plot", target, "-q"])
    assert result.exit_code == 1 and target.exists()


def test_verify_plot_reads_standard_input_once(run, tmp_path):
    target = tmp_path / "v.svg"
    csv = run(["derive", "-g", "cyclic", "-n", "5", "--format", "csv"]).stdout
    result = run(["verify", "-", "-g", "cyclic", "--plot", target, "--format", "json"], input=csv)
    assert result.exit_code == 0, result.stderr
    assert target.read_text().lstrip().startswith("<?xml")


@pytest.mark.parametrize(
    "args, says",
    [
        ([SAMPLES / "conv.yaml"], "--plot draws a matrix input; this is a layer spec"),
        ([SAMPLES / "dense.csv", SAMPLES / "petersen.csv", "-g", "cyclic"], "--plot draws one matrix"),
        (["--callable", "mylayers:centred", "--input-shape", "4x2", "-g", "cyclic"], "--plot draws one matrix"),
    ],
)
def test_verify_plot_refuses_what_it_cannot_draw(run, tmp_path, args, says):
    result = run(["verify", *args, "--plot", tmp_path / "v.png"])
    assert result.exit_code == 2 and says in result.stderr, result.stderr
    assert not (tmp_path / "v.png").exists()


def test_verify_plot_refuses_a_symbolic_matrix(run, tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("# symbols\na,b\nb,a\n")
    result = run(["verify", path, "-g", "cyclic", "--plot", tmp_path / "v.png"])
    assert result.exit_code == 2 and "--plot draws numbers; this matrix holds symbols" in result.stderr


def test_project_and_symmetries_plot_standard_input(run, tmp_path):
    csv = (SAMPLES / "petersen.csv").read_text()
    result = run(["project", "-", "-g", "dihedral", "--plot", tmp_path / "p.png", "--format", "csv"], input=csv)
    assert result.exit_code == 0 and len(result.stdout.splitlines()) == 10
    result = run(["symmetries", "-", "--plot", tmp_path / "s.png", "--format", "json"], input=csv)
    assert result.exit_code == 0 and '"order": 120' in result.stdout
    assert (tmp_path / "p.png").exists() and (tmp_path / "s.png").exists()


def test_project_and_symmetries_plot(run, tmp_path):
    assert run(["project", SAMPLES / "dense.csv", "-g", "dihedral", "--plot", tmp_path / "p.pdf"]).exit_code == 0
    assert (tmp_path / "p.pdf").read_bytes().startswith(b"%PDF")
    result = run(["symmetries", SAMPLES / "petersen.csv", "--plot", tmp_path / "s.png", "--format", "json"])
    assert result.exit_code == 0 and matplotlib.image.imread(tmp_path / "s.png").ndim == 3


def test_symmetries_picture_colours_the_orbits_of_the_group_found():
    W = np.loadtxt(SAMPLES / "petersen.csv", delimiter=",", comments="#")
    found = gdlcheck.find_symmetries(W)
    orbits = gdlcheck.derive(found.group)
    values, colouring = plot_pictures.symmetries_picture("petersen.csv", W, found, orbits).panels
    assert np.array_equal(values.data, W) and np.array_equal(colouring.data, orbits.pattern)
    assert orbits.dimension == 3  # self, neighbour, non-neighbour


# --------------------------------------------------------------------------- the README's picture


def test_readme_shows_the_picture_made_by_plot(run, tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "![" in readme and "(docs/pattern-p4.png)" in readme
    (command,) = re.findall(r"`(gdlcheck derive [^`]*--plot docs/pattern-p4\.png)`", readme)
    args = command.split()[1:]
    fresh = tmp_path / "pattern-p4.png"
    args[args.index("docs/pattern-p4.png")] = str(fresh)
    assert run(args).exit_code == 0
    shown = matplotlib.image.imread(ROOT / "docs" / "pattern-p4.png")
    made = matplotlib.image.imread(fresh)
    assert made.shape == shown.shape
    # the same pixels (a tolerance for a matplotlib that anti-aliases its text a little differently;
    # another pattern, palette or layout changes far more than this)
    diff = np.abs(made - shown).max(axis=-1)
    assert (diff > 0.1).mean() < 0.002, "docs/pattern-p4.png is stale: regenerate it with " + command
