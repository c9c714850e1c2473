"""Layer spec files: YAML through the safe loader, checked key by key.

The document is composed into YAML nodes (the safe loader's composer), and turned into
plain Python values here, so that

* only the standard YAML tags are accepted (a ``!!python/...`` tag is an input error, never
  a constructor call);
* nesting depth and the number of nodes, aliases expanded, are bounded (a "billion laughs"
  document is refused as soon as the budget runs out);
* every key path remembers its line, for error messages.

This is the only module that imports ``yaml``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from gdlcheck.errors import SpecError
from gdlcheck.limits import MAX_YAML_BYTES, MAX_YAML_DEPTH, MAX_YAML_NODES
from gdlcheck.text import NUMBER_FORMS, is_number_text, printable, shorten, suggest

TOP_KEYS = ("name", "symmetry", "expect", "seed", "channels", "layer", "layers", "description")
SYMMETRY_KEYS = ("group", "n", "shape", "graph", "generators")
EXPECT = ("equivariant", "invariant")

_NUMBER_TAGS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float"}
_STANDARD_TAGS = {
    "tag:yaml.org,2002:" + t
    for t in ("str", "int", "float", "bool", "null", "seq", "map", "timestamp", "binary", "merge")
}


# Keys people write for a spec key, by meaning: the suggestion for an unknown key (only where the
# key meant is allowed at that place: 'weights' is an mlp key, 'weight' a linear one).
KEY_MEANINGS = {
    **dict.fromkeys(("type", "layer_type", "class", "op", "kind_of", "module"), "kind"),
    **dict.fromkeys(("weights", "w", "matrix"), "weight"),
    **dict.fromkeys(("filter", "filters", "kernels"), "kernel"),
    **dict.fromkeys(("act", "nonlinearity", "activation_fn", "activations"), "activation"),
    **dict.fromkeys(("b", "biases"), "bias"),
    **dict.fromkeys(("group", "groups", "symmetries", "invariance", "equivariance"), "symmetry"),
    **dict.fromkeys(("model", "net", "network"), "layer"),
    **dict.fromkeys(("expected", "expectation", "property"), "expect"),
    **dict.fromkeys(("num_heads", "n_heads", "nhead"), "heads"),
    **dict.fromkeys(("dim", "hidden", "d", "embed_dim"), "d_model"),
    **dict.fromkeys(("dim_feedforward", "ff", "d_hidden"), "d_ff"),
    **dict.fromkeys(("normalisation", "norm"), "normalization"),
    **dict.fromkeys(("self_loop", "selfloops", "add_self_loops"), "self_loops"),
    **dict.fromkeys(("adj", "a", "edges"), "adjacency"),
    **dict.fromkeys(("random_seed", "rng"), "seed"),
    **dict.fromkeys(("size", "points", "num_points"), "n"),
    **dict.fromkeys(("perms", "permutations", "gens"), "generators"),
}


@dataclass
class Spec:
    """A parsed spec file. ``layer`` is the raw layer tree, checked when it is built."""

    path: str
    layer: object
    name: str | None = None
    symmetry: dict | None = None
    expect: str = "equivariant"
    seed: int = 0
    channels: int | None = None
    lines: dict[str, int] = field(default_factory=dict)
    layer_key: str = "layer"  # the key that holds the layer tree: "layer", or "layers" (a list)
    allowed: tuple[str, ...] = ()  # folders besides the spec's own that {file: ...} may read (--allow-path)

    @property
    def folder(self) -> str:
        return os.path.dirname(os.path.abspath(self.path)) if self.path != "-" else current_folder()

    def error(self, what: str, where: str) -> SpecError:
        """A SpecError at ``where`` with the line of that key, when known."""
        line = self.lines.get(where)
        return SpecError(what + (f" (line {line})" if line else ""), file=self.path, where=where)

    def locate(self, err):
        """``err`` (a GdlcheckError about this spec) with the YAML line of its key path, if it has none.

        The line is the key's own, or its nearest enclosing key's; ``row K ...`` of a matrix
        points at row K.
        """
        import re

        if not err.where or err.file not in (None, self.path) or "(line " in str(err.what):
            return err
        where = err.where
        row = re.match(r"row (\d+) ", str(err.what))
        candidates = [f"{where}[{row.group(1)}]"] if row else []
        while where:
            candidates.append(where)
            where = re.sub(r"(\[\d+\]|\.[^.\[]*|^[^.\[]*)$", "", where)
        line = next((self.lines[c] for c in candidates if c in self.lines), None)
        if line is not None:
            err.what = f"{err.what} (line {line})"
            err.args = (err.what,)
        return err


def current_folder() -> str:
    """The working folder, or an input error when it was deleted under us."""
    try:
        return os.getcwd()
    except OSError:
        raise SpecError("the current folder no longer exists; cd to a folder and run again") from None


def confined_path(spec: Spec | None, name: str) -> str:
    """The path a ``{file: NAME}`` of ``spec`` reads: relative to the spec's folder and inside it
    (no absolute path, no ``..`` past it, no symbolic link out of it), or inside a folder the
    user allowed (``--allow-path DIR``).  Refused before anything is opened, so the message
    says nothing about what exists outside."""
    if "\x00" in name:  # os.path raises ValueError on it; no file has such a name
        raise SpecError(f"file '{printable(shorten(name, 60))}': a file name cannot hold a NUL character")
    folder = spec.folder if spec is not None else current_folder()
    allowed = (folder,) + (tuple(spec.allowed) if spec is not None else ())
    full = os.path.realpath(os.path.join(folder, name))
    for root in allowed:
        root = os.path.realpath(root)
        try:
            if os.path.commonpath([full, root]) == root:
                return full
        except ValueError:  # different drives
            continue
    raise SpecError(
        f"file {printable(shorten(name, 60))!r} is outside the spec's folder; a spec reads only files in "
        "its own folder (give --allow-path DIR to allow another)"
    )


def check_keys(mapping: dict, allowed, where: str, spec: Spec | None = None) -> None:
    """Reject keys not in ``allowed``, with a 'did you mean' for near misses."""
    for key in mapping:
        if key not in allowed:
            what = f"unknown key {key!r}{suggest(key, allowed, meanings=KEY_MEANINGS)}; allowed: {', '.join(allowed)}"
            path = f"{where}.{key}" if where else str(key)
            if spec is not None:
                raise spec.error(what, path)
            raise SpecError(what, where=path)


def _loader(yaml):
    """libyaml's composer where PyYAML was built with it (9x faster), else the pure-Python one.

    Only the composer runs (text to nodes); scalars are constructed one by one below, under
    the tag, node and depth budgets, so both loaders read the same documents the same way.
    """
    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _tab_hint(text: str, mark) -> str:
    """A tab where YAML wants spaces is the usual cause of 'cannot start any token': say so."""
    if mark is None:
        return ""
    lines = text.splitlines()
    line = lines[mark.line] if mark.line < len(lines) else ""
    indent = line[: len(line) - len(line.lstrip(" \t"))]
    if "\t" in indent or line[mark.column : mark.column + 1] == "\t":
        return ": the line holds a tab ('\\t') where YAML wants spaces; indent with spaces"
    return ""


def parse_yaml(text: str, path: str) -> tuple[object, dict[str, int]]:
    """Safe-load ``text``; returns the value and a map from key paths to 1-based lines."""
    import yaml

    _check_yaml_size(text, path, hasattr(yaml, "CSafeLoader"))
    try:
        node = yaml.compose(text, Loader=_loader(yaml))
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        if "nesting depth" in problem:  # libyaml's own depth limit, far past ours
            raise SpecError(f"YAML nested deeper than {MAX_YAML_DEPTH} levels{where}", file=path) from None
        raise SpecError(f"invalid YAML: {problem}{where}{_tab_hint(text, mark)}", file=path) from None
    except RecursionError:
        raise SpecError(f"YAML nested deeper than {MAX_YAML_DEPTH} levels", file=path) from None
    if node is None:
        raise SpecError("empty spec file", file=path)
    size = _expanded_size(node, {}, 0, path)
    if size > MAX_YAML_NODES:
        raise SpecError(
            f"YAML document expands to {size:.3g} nodes with its aliases, over the limit of {MAX_YAML_NODES}", file=path
        )
    lines: dict[str, int] = {}
    budget = [MAX_YAML_NODES]
    constructor = yaml.SafeLoader("")
    value = _to_python(node, "", 0, lines, budget, constructor, path)
    return value, lines


def _check_yaml_size(text: str, path: str, fast: bool) -> None:
    """Refuse a document by its size before it is composed: its bytes, and its nodes estimated
    from the separators (every node but the first follows a comma, a newline or a bracket),
    counted in C.  Without libyaml the pure-Python composer reads about 25,000 nodes a second:
    its budgets are a tenth."""
    share = 1 if fast else 10
    limit_bytes, limit_nodes = MAX_YAML_BYTES // share, MAX_YAML_NODES // share
    if len(text) > limit_bytes:
        raise SpecError(
            f"YAML document of {len(text)} characters exceeds the limit of {limit_bytes} (put large "
            "weights in a file: weight: {file: w.npy})",
            file=path,
        )
    estimate = text.count(",") + text.count("\n") + text.count("[") + text.count("{")
    if estimate > limit_nodes:
        raise SpecError(
            f"YAML document of about {estimate} nodes exceeds the limit of {limit_nodes} (put large "
            "weights in a file: weight: {file: w.npy})",
            file=path,
        )


def _expanded_size(node, memo: dict, depth: int, path: str) -> int:
    """Nodes in the document with every alias expanded, counted without expanding (memoised)."""
    import yaml

    key = id(node)
    if key in memo:
        return memo[key]
    if depth > MAX_YAML_DEPTH:
        raise SpecError(f"YAML nested deeper than {MAX_YAML_DEPTH} levels (line {node.start_mark.line + 1})", file=path)
    if isinstance(node, yaml.ScalarNode):
        size = 1
    elif isinstance(node, yaml.SequenceNode):
        size = 1 + sum(_expanded_size(item, memo, depth + 1, path) for item in node.value)
    else:
        size = 1 + sum(
            _expanded_size(k, memo, depth + 1, path) + _expanded_size(v, memo, depth + 1, path) for k, v in node.value
        )
    memo[key] = size
    return size


def _to_python(node, where, depth, lines, budget, constructor, path):
    import yaml

    budget[0] -= 1
    if budget[0] < 0:
        raise SpecError(f"YAML document expands to more than {MAX_YAML_NODES} nodes (aliases counted)", file=path)
    if depth > MAX_YAML_DEPTH:
        raise SpecError(f"YAML nested deeper than {MAX_YAML_DEPTH} levels", file=path, where=where or None)
    if node.tag not in _STANDARD_TAGS:
        raise SpecError(
            f"YAML tag {node.tag!r} is not allowed (line {node.start_mark.line + 1}); only plain YAML data is read",
            file=path,
            where=where or None,
        )
    if where:
        lines.setdefault(where, node.start_mark.line + 1)
    if isinstance(node, yaml.ScalarNode):
        if (
            node.tag in _NUMBER_TAGS
            and not is_number_text(node.value)
            and node.value.lower().lstrip("+-") not in (".inf", ".nan")
        ):
            # YAML 1.1 reads 0x10, 0o7, 0b1, 1_000 and 1:30 (sexagesimal) as numbers; gdlcheck's
            # numbers are decimal everywhere (README, "Numbers")
            raise SpecError(
                f"number {shorten(node.value, 40)!r} is not in a form gdlcheck reads (line "
                f"{node.start_mark.line + 1}); write {NUMBER_FORMS}",
                file=path,
                where=where or None,
            )
        if node.tag in _NUMBER_TAGS and is_number_text(node.value):
            # decimal as written: YAML 1.1 would read 010 as octal 8
            text = node.value.strip()
            if len(text) > 4000:  # Python's int() refuses past 4300 digits; no number gdlcheck reads is this long
                raise SpecError(
                    f"number of {len(text)} digits is too long (line {node.start_mark.line + 1})",
                    file=path,
                    where=where or None,
                )
            return int(text) if node.tag.endswith(":int") else float(text)
        try:
            return constructor.construct_object(node, deep=True)
        except Exception as err:  # PyYAML's constructors raise IndexError, ValueError, ... on bad scalars
            raise SpecError(
                f"bad YAML value {node.value!r} for tag {node.tag.rsplit(':', 1)[-1]}: "
                f"{str(err) or type(err).__name__}",
                file=path,
                where=where or None,
            ) from None
    if isinstance(node, yaml.SequenceNode):
        return [
            _to_python(item, f"{where}[{i}]", depth + 1, lines, budget, constructor, path)
            for i, item in enumerate(node.value)
        ]
    out = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode) or key_node.tag not in _STANDARD_TAGS:
            raise SpecError(
                f"a mapping key must be a plain word (line {key_node.start_mark.line + 1})",
                file=path,
                where=where or None,
            )
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise SpecError(
                f"YAML merge keys '<<' are not supported (line {key_node.start_mark.line + 1})",
                file=path,
                where=where or None,
            )
        key = str(key_node.value)
        child = f"{where}.{key}" if where else key
        if key in out:
            raise SpecError(f"key {key!r} appears twice (line {key_node.start_mark.line + 1})", file=path, where=child)
        lines.setdefault(child, key_node.start_mark.line + 1)
        out[key] = _to_python(value_node, child, depth + 1, lines, budget, constructor, path)
    return out


def load_spec(path: str, text: str | None = None) -> Spec:
    """Read and check the top level of a spec file (the layer tree is checked when built)."""
    if text is None:
        from gdlcheck.inputs.files import decode_text, read_bytes

        text = decode_text(read_bytes(path), path)
    value, lines = parse_yaml(text, path)
    return spec_from_value(value, path, lines)


def spec_from_value(value, path: str, lines: dict[str, int] | None = None) -> Spec:
    if not isinstance(value, dict):
        raise SpecError("a spec must be a mapping with a 'layer' key", file=path)
    spec = Spec(path=path, layer=None, lines=lines or {})
    check_keys(value, TOP_KEYS, "", spec)
    if "layer" in value and "layers" in value:
        raise spec.error("give 'layer' or 'layers', not both", "layers")
    if "layer" not in value and "layers" not in value:
        raise SpecError("missing key 'layer' (the layer to verify)", file=path)
    # top-level "layers: [...]" is a sequential whose items sit at layers[i] in the file
    spec.layer_key = "layer" if "layer" in value else "layers"
    spec.layer = value[spec.layer_key]
    if value.get("name") is not None:
        spec.name = str(value["name"])
    expect = value.get("expect", "equivariant")
    if expect not in EXPECT:
        raise spec.error(
            f"expect must be one of {', '.join(EXPECT)}, got {expect!r}{suggest(expect, EXPECT)}", "expect"
        )
    spec.expect = expect
    seed = value.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise spec.error(f"seed must be a non-negative integer, got {seed!r}", "seed")
    spec.seed = seed
    channels = value.get("channels")
    if channels is not None and (isinstance(channels, bool) or not isinstance(channels, int) or channels < 1):
        raise spec.error(f"channels must be a positive integer, got {channels!r}", "channels")
    spec.channels = channels
    sym = value.get("symmetry")
    if sym is not None:
        if isinstance(sym, str):
            sym = {"group": sym}
        if not isinstance(sym, dict):
            raise spec.error("symmetry must be a mapping like {group: cyclic, n: 8}", "symmetry")
        check_keys(sym, SYMMETRY_KEYS, "symmetry", spec)
        if "group" not in sym:
            raise spec.error("missing key 'group'", "symmetry")
        spec.symmetry = sym
    return spec


def is_spec_text(text: str) -> bool:
    """Whether standard input holds a YAML spec rather than a matrix: its first line is a key."""
    import re

    from gdlcheck.inputs.tables import first_data_line

    line = first_data_line(text)  # no string per line: standard input may hold 50 million of them
    if line is None:
        return False
    head = line.strip()
    if head.startswith(("---", "%YAML", "{")):  # a YAML document marker or a flow mapping
        return True
    return re.match(r"^\s*[A-Za-z_][\w-]*\s*:(\s|$)", line) is not None


def dump_yaml(value: dict, label: str = "<spec>") -> str:
    """A spec given as a Python dict, as YAML text (read back by :func:`load_spec`)."""
    import yaml

    try:
        return yaml.safe_dump(value, sort_keys=False)
    except yaml.YAMLError as err:
        raise SpecError(f"the spec holds a value YAML cannot represent ({err})", file=label) from None
