"""``gdlcheck measure``: a trained model's equivariance error layer by layer on the user's data."""

from __future__ import annotations

import click

from gdlcheck.cli.common import Integer, Progress, check_plot, complete_files, plot_option, save_plot
from gdlcheck.cli.formats import JSON, TEXT, emit, format_option
from gdlcheck.cli.streams import code_writes_to_stderr


@click.command("measure")
@click.option(
    "--callable",
    "target",
    metavar="MODULE:ATTR",
    required=True,
    help="The torch model (a module, or a class or factory that builds one; runs your code): MODULE is "
    "imported from the current folder or the installed packages, or is a file PATH.py.",
)
@click.option(
    "--data",
    metavar="FILE",
    required=True,
    type=click.Path(dir_okay=False),
    shell_complete=complete_files,
    help="A batch of inputs B x n x ... (.pt .pth .npy .npz .safetensors holding one array; no code in it "
    "runs); one input n x ... is a batch of one.",
)
@click.option(
    "--weights",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    shell_complete=complete_files,
    help="A trained state_dict loaded into the model first (.pt .pth .safetensors .npz).",
)
@click.option("--group", "-g", "group", metavar="NAME", help="Group name (see 'gdlcheck groups').")
@click.option("-n", "n", type=Integer(min=1), help="Number of points [default: the data's].")
@click.option("--shape", metavar="HxW", help="Grid shape for translations, p4, p4m (e.g. 8x8).")
@click.option(
    "--generators",
    "generators",
    multiple=True,
    metavar="PERM",
    help="A generator in cycle notation '(0 1)(2 3)' or array form '[1, 0, 3, 2]'; repeatable.",
)
@click.option(
    "--graph",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    shell_complete=complete_files,
    help="The graph the model takes besides the data, model(x, graph), moved with the nodes: a 2 x E "
    "edge_index, an n x n adjacency or a scipy.sparse .npz; with no --group, the group is its "
    "automorphisms.",
)
@click.option(
    "--points-axis",
    type=int,
    default=None,
    metavar="AXIS",
    help="The data's axis of the points [default: 1, axis 0 being the batch; 0 with --graph].",
)
@click.option(
    "--elements",
    type=Integer(min=0, max=200),
    default=8,
    show_default=True,
    help="Seeded random group elements applied besides the generators.",
)
@click.option("--seed", type=Integer(min=0), default=0, show_default=True, help="Seed of the random elements.")
@format_option(TEXT, JSON)
@plot_option("each layer's error and own contribution by its place in the model")
def command(target, data, weights, group, n, shape, generators, graph, points_axis, elements, seed, fmt, plot):
    """Measure how equivariant a trained model is, layer by layer, on your data.

    For each submodule m, in the order the model runs them, and over the group's generators and
    random elements g: the error of its output, |m(gx) - g m(x)| / |g m(x)| (the model run on the
    moved data), and its own contribution, the same with the layer's input made exact. The leaf
    with the largest own contribution is where the symmetry breaks. Exit 0 when measured.

    \b
    Example:
      gdlcheck measure --callable model.py:Net --weights ckpt.safetensors --data batch.pt --group symmetric
      gdlcheck measure --callable model.py:Net --data batch.npy -g cyclic --format json
      gdlcheck measure --callable model.py:Net --data batch.npy -g cyclic --plot layers.png
      gdlcheck measure --callable gnn.py:GNN --data x.npy --graph edge_index.npy -g symmetric
    """
    from gdlcheck import api

    check_plot(plot)
    opts = api.GroupOptions(name=group, n=n, shape=shape, generators=tuple(generators), graph=graph)
    progress = Progress("measure") if fmt is TEXT else None
    try:
        with code_writes_to_stderr():  # standard output carries gdlcheck's report alone
            measured = api.measure_target(
                target,
                data,
                opts,
                points_axis=points_axis,
                elements=elements,
                seed=seed,
                weights=weights,
                progress=progress,
            )
    finally:
        if progress is not None:
            progress.done()
    emit(fmt, text=lambda: _report(measured), json=measured.to_json)
    if plot:
        from gdlcheck.output.plot_pictures import measure_picture

        save_plot(measure_picture(measured), plot)


def _report(measured):
    from gdlcheck.output.render_measure import render_measure

    return render_measure(measured)
