"""4.7: where each element goes through split, transpose and merge of heads."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scenes.compute.provenance import INDEX, Const, Given, Made, Source, head_layouts as layout_sources


@dataclass(frozen=True)
class HeadTrack:
    shape: tuple             # (B, T, D)
    heads: int
    head_dim: int
    element: int
    start: tuple             # [b, t, c] in [B, T, D]
    split: tuple             # [b, t, h, r] in [B, T, H, d]
    transposed: tuple        # [b, h, t, r] in [B, H, T, d]
    back: tuple              # [b, t, h, r] after transpose(1, 2) again
    merged: tuple            # [b, t, c] after reshape
    wrong: tuple             # [b, t, c] if merged by reshape without transposing back
    score_shape: tuple       # [B, H, T, T]
    layouts: dict            # step name -> id tensor in that step's layout


def head_layouts(shape, heads):
    b, t, d_model = shape
    d = d_model // heads
    ids = np.arange(b * t * d_model).reshape(b, t, d_model)
    split = ids.reshape(b, t, heads, d)
    transposed = split.transpose(0, 2, 1, 3)
    back = transposed.transpose(0, 2, 1, 3)
    return {"start": ids, "split": split, "transposed": transposed, "back": back,
            "merged": back.reshape(b, t, d_model),
            "wrong": np.ascontiguousarray(transposed).reshape(b, t, d_model)}


def track_element(shape, heads, element):
    """Where element e_n sits at each step of split, transpose and merge."""
    b_, t_, d_model = shape
    d = d_model // heads
    b, rest = divmod(element, t_ * d_model)
    t, c = divmod(rest, d_model)
    h, r = divmod(c, d)
    flat = ((b * heads + h) * t_ + t) * d + r     # its place in the [B, H, T, d] order
    wb, rest = divmod(flat, t_ * d_model)
    return HeadTrack(tuple(shape), heads, d, element, (b, t, c), (b, t, h, r), (b, h, t, r),
                     (b, t, h, r), (b, t, c), (wb, *divmod(rest, d_model)),
                     (b_, heads, t_, t_), head_layouts(shape, heads))


HEAD_SWAP = (1, 2)   # transpose(1, 2): the axes T and H of [B, T, H, d]


def misplaced_by_wrong_merge(shape, heads):
    """Ids that the wrong merge (reshape without transposing back) puts somewhere else."""
    layouts = head_layouts(shape, heads)
    return np.sort(layouts["wrong"][layouts["wrong"] != layouts["merged"]])


def head_split(d_model, heads):
    """(d, remainder) of D / H: the heads split evenly only when the remainder is 0."""
    return divmod(int(d_model), int(heads))


def drawn_sources(layouts):
    """Where each drawn id comes from (compute.provenance.head_layouts), under the labels the clip
    draws it with: the passing "back" layout is drawn under the split's labels (transposing back
    gives the split layout again, id for id), so the merge takes each id from a split label."""
    out = {}
    for label, src in layout_sources(layouts).items():
        if not label.startswith("back"):
            out[label] = Source(src.op, tuple("split" + s[len("back"):] if s.startswith("back") else s
                                              for s in src.sources))
    return out


# what each number with no source is (provenance.kind): the sizes, the ids, the tracked id's place
KINDS = {r"(start|error)\.shape\[[01]\]": Given("shape"), r"start\.shape\[2\]": Given("shape"),
         r"error\.shape\[2\]": Given("error_d", ()), r"error\.heads": Given("error_heads"),
         r"error\.split\[\d+\]": Made("divmod", ("error.shape[2]", "error.heads")),
         "head_dim": Made("divide", ("start.shape[2]", "heads")), "count": Made("product", ("start.shape[*]",)),
         r"start\[\d+\]\[\d+\]\[\d+\]": Const("an element's id, numbered in reading order"),
         r"\w+\.group\[\d+\]\[\d+\]\[\d+\]": Const(INDEX),
         r"track\.\w+\[\d+\]": Made("where the tracked id is", ("track",)),
         r"transpose\.dims\[\d+\]": Const("the dims transpose swaps"),
         "misplaced": Made("count misplaced", ("wrong[*][*][*]",))}
