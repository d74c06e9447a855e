"""4.9: where each answer of the exercises clip comes from (compute.exercises computes them): 3.1's
W transposed and both versions' outputs, 3.2's heads and their concatenation, 3.3's counts, the
supplementary weights, sums and counts, and the shapes, each from the sizes before it. Labels
never drawn (the key and value weights, for one) are named all the same: the page lists them."""
from __future__ import annotations

import numpy as np

from scenes.compute import provenance
from scenes.compute.provenance import Source
def _cell(name: str, *idx: int) -> str:
    return name + "".join(f"[{i}]" for i in idx)


def _softmax(out: dict, name: str, of: str, hidden: np.ndarray, axis: int = -1) -> None:
    """name[i][j] <- the visible entries of `of` along `axis` (none when hidden, or when one is
    visible: its weight is 1 whatever its score)."""
    hidden = np.asarray(hidden, bool)
    for i, j in np.ndindex(*hidden.shape):
        seen = [c for c in ([(i, k) for k in range(hidden.shape[1])] if axis == -1 else
                            [(k, j) for k in range(hidden.shape[0])]) if not hidden[c]]
        out[_cell(name, i, j)] = Source("softmax", () if hidden[i, j] or len(seen) == 1 else
                                        tuple(_cell(of, *c) for c in seen))


def _sums(out: dict, name: str, of: str, shape: tuple, axis: int = -1) -> None:
    """name[i] <- of[i][*] (axis -1: a row's sum) or of[*][i] (axis -2: a column's)."""
    rows, cols = shape
    for i in range(rows if axis == -1 else cols):
        line = [(i, k) for k in range(cols)] if axis == -1 else [(k, i) for k in range(rows)]
        out[_cell(name, i)] = Source("sum", tuple(_cell(of, *c) for c in line))


def sources(results: dict) -> dict:
    """label -> Source for the computed answers the clip draws (results: the clip's compute results by
    exercise): 3.1's W transposed, 3.2's concatenation, 3.3's subtotal and total, the supplementary
    weights and sums, and the shapes, each from the sizes before it."""
    out: dict = {}
    a, w, z, d = (results[n] for n in ("3.1", "3.2", "zeros", "dim"))
    for i, j in np.ndindex(*a.v1[0].shape):
        out[_cell("align.v1", i, j)] = Source("transpose", (_cell("align.linear", j, i),))
    for i, j in np.ndindex(*w.concat.shape):
        head, col = divmod(j, w.d_out)
        out[_cell("wrap.concat", i, j)] = Source("concat", (f"wrap.head[{head}][{i}][{col}]",))
    out["params.qkv"] = Source("sum", ("params.w_query", "params.w_key", "params.w_value"))
    out["params.total"] = Source("sum", ("params.qkv", "params.out_weight", "params.out_bias"))
    _softmax(out, "zeros.weights", "zeros.masked", z.hidden)
    _sums(out, "zeros.sums", "zeros.weights", z.weights.shape)
    _softmax(out, "dim.right", "dim.scores", d.hidden)
    _softmax(out, "dim.wrong", "dim.scores", d.hidden, axis=-2)
    _sums(out, "dim.right_rows", "dim.right", d.right.shape)
    _sums(out, "dim.wrong_rows", "dim.wrong", d.wrong.shape)
    _sums(out, "dim.wrong_cols", "dim.wrong", d.wrong.shape, axis=-2)
    keep, hide = results["diagonal"]
    _softmax(out, "diag.weights", "diag.masked", hide.hidden)
    for i in range(len(hide.masked)):          # a row with no visible key: NaN, from nothing
        if hide.visible[i] == 0:
            out.update({_cell("diag.weights", i, j): Source("softmax", ()) for j in range(len(hide.masked))})
    out.update(shape_sources())
    out.update(answers(results))
    return out


def projected(out: dict, name: str, x: str, weights: tuple, shape: tuple, causal: bool,
              linear: bool) -> None:
    """name[i][c] <- what softmax(x Wq (x Wk)ᵀ / √d) x Wv at [i][c] depends on (provenance.run):
    x's rows, the three weights (named `weights`; linear: nn.Linear's [d_out, d_in] layout, else
    [d_in, d_out]); shape: (T, d_in, d_out)."""
    t, d_in, d_out = shape
    chain: dict = {}
    for w, made in zip(weights, ("q", "k", "v")):
        for i, r in np.ndindex(t, d_out):
            chain[f"{name}.{made}[{i}][{r}]"] = Source("dot", tuple(
                [_cell(x, i, e) for e in range(d_in)] + [_cell(w, *((r, e) if linear else (e, r))) for e in range(d_in)]))
    hidden = np.triu(np.ones((t, t), bool), 1) if causal else np.zeros((t, t), bool)
    chain.update(provenance.attention(t, t, d_out, d_out, hidden, tuple(f"{name}.{n}" for n in "qkv"), name + "."))
    for i, c in np.ndindex(t, d_out):
        out[_cell(name, i, c)] = Source("attention", provenance.flat(_cell(name + ".output", i, c), chain))


def answers(results: dict) -> dict:
    """3.1's weights (drawn as nn.Linear draws them), inputs (the book's) and both versions' outputs
    (v1 from W in [d_in, d_out], v2 from nn.Linear's weight), 3.2's causal heads from the same x,
    3.3's tensors' numel, the scores of 4.1's vectors, the keys each row of the masked diagonal sees."""
    a, w, p = results["3.1"], results["3.2"], results["3.3"]
    (t, d_in), d_out = a.x.shape, a.linear.shape[1]
    out: dict = {_cell("align.linear", *idx): Source("draw", ()) for idx in np.ndindex(*a.linear[0].shape)}
    out.update({_cell("align.x", *idx): Source("book input", ()) for idx in np.ndindex(*a.x.shape)})
    projected(out, "align.out_v1", "align.x", ("align.v1", "align.v1_key", "align.v1_value"), (t, d_in, d_out),
              False, False)
    projected(out, "align.out_v2", "align.x", ("align.linear", "align.linear_key", "align.linear_value"),
              (t, d_in, d_out), False, True)
    for h in range(w.heads):
        projected(out, f"wrap.head[{h}]", "align.x", tuple(f"wrap.w_{n}[{h}]" for n in ("query", "key", "value")),
                  (t, w.d_in, w.d_out), True, True)
    square = ("params.square[0]", "params.square[1]")
    out.update({f"params.{n}": Source("product", square) for n in ("w_query", "w_key", "w_value", "out_weight")})
    out["params.out_bias"] = Source("count", ("params.bias_shape[0]",))
    d = results["dim"].scores
    out.update({_cell("dim.scores", *idx): Source("book scores", ()) for idx in np.ndindex(*d.shape)})
    hide = results["diagonal"][1]
    out.update({f"diag.visible[{i}]": Source("count visible", tuple(_cell("diag.masked", i, j) for j in range(len(row))))
                for i, row in enumerate(hide.masked)})
    return out


def shape_sources() -> dict:
    """The shapes exercise: each size <- the sizes before it (and H, d), by its line's operation."""
    dim = lambda name, *ks: tuple(f"shapes.{name}[{k}]" for k in ks)    # noqa: E731
    rules: dict[str, tuple[str, list[tuple[str, ...]]]] = {
             "projected": ("linear", [("shapes.batch",), ("shapes.time",), ("shapes.d_model",)]),
             "split": ("view", [dim("projected", 0), dim("projected", 1), ("shapes.heads",),
                                ("shapes.head_dim",)]),
             "per_head": ("transpose", [dim("split", k) for k in (0, 2, 1, 3)]),
             "scores": ("matmul", [dim("per_head", k) for k in (0, 1, 2, 2)]),
             "back": ("matmul, transpose", [*(dim("scores", k) for k in (0, 2, 1)), dim("per_head", 3)]),
             "merged": ("reshape", [dim("back", 0), dim("back", 1), dim("back", 2, 3)])}
    out = {"shapes.head_dim": Source("divide", ("shapes.d_model", "shapes.heads"))}
    for name, (op, sizes) in rules.items():
        out.update({f"shapes.{name}[{k}]": Source(op, tuple(src)) for k, src in enumerate(sizes)})
    return out


# what each number with no source is (provenance.kind): the exercises' numbers, the sizes asked,
# the fixed example's sizes and the supplementary answers
KINDS = {r"ex\.\S+": provenance.Const("the exercise's number"),
         r"params\.d|params\.square\[\d+\]": provenance.Given("params", (0,)),
         r"params\.heads": provenance.Given("params", (1,)),
         r"shapes\.d_model": provenance.Given("shapes", (0,)), r"shapes\.heads": provenance.Given("shapes", (1,)),
         r"shapes\.(time|batch)": provenance.Const("the exercise's example sizes"),
         r"params\.(coefficient|power|projections)": provenance.Const("a count of the formula"),
         r"params\.head_dim": provenance.Made("divide", ("params.d", "params.heads")),
         r"params\.weight": provenance.Made("product", ("params.square[*]",)),
         r"align\.max_diff": provenance.Made("max abs difference", ("align.out_v1[*][*]", "align.out_v2[*][*]")),
         r"wrap\.(heads|width|book_d_out|book_width|d_out|d_in)": provenance.Const("the exercise's sizes"),
         r"shapes\.(swap|key_swap)\[\d+\]": provenance.Const("the axes transpose swaps"),
         r"wrap\.cat_dim|dim\.(wrong_axis|right_axis|one)": provenance.Const("a dim the code names"),
         r"zeros\.(t|score|diagonal)": provenance.Const("the exercise's example"),
         r"zeros\.(num|den)\[\d+\]\[\d+\]": provenance.Made("softmax as a fraction", ("zeros.masked[{0}][*]",)),
         r"zeros\.masked\[\d+\]\[\d+\]": provenance.Made("triu", ("zeros.diagonal",)),
         r"diag\.masked\[\d+\]\[\d+\]": provenance.Made("triu", ("diag.hide",)),
         r"dim\.rows_off": provenance.Made("count rows not summing to one", ("dim.wrong_rows[*]",)),
         r"diag\.(keep|hide)": provenance.Const("the diagonal the exercise compares"),
         r"diag\.first_empty": provenance.Made("first row with no visible key", ("diag.visible[*]",)),
         r"diag\.keep_visible|diag\.keep_weight": provenance.Made("with diagonal 1, row 0 sees itself", ("diag.keep",)),
         r"row\[\d+\]": provenance.Const(provenance.INDEX)}
