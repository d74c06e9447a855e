"""Where each number comes from: for a label a clip draws, the labels it is computed from and
by which operation. No Manim, no values: the structure of the maths only.

    attention(n_q, n_k, d_k, d_v, hidden) -> {label: Source}
        scores[i][j]  <- Σ_r q[i][r]·k[j][r]
        scaled[i][j]  <- scores[i][j] / √d_k
        masked[i][j]  <- scaled[i][j] (visible), or the constant −∞ (hidden: no source)
        weights[i][j] <- softmax over masked[i][*] (the row's visible entries; none when hidden,
                         and none when one key is visible: its weight is 1 whatever its score)
        output[i][c]  <- Σ_j weights[i][j]·v[j][c] (the visible j)
    head_layouts(layouts) -> {label: Source}: each id at each layout <- the same id at the layout
        it is made from (HEAD_STEPS: view, transpose and merge move numbers, they do not compute them)
    inputs_of(label, sources) -> the input labels (those with no source) a label depends on
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

import numpy as np


@dataclass(frozen=True)
class Source:
    op: str                          # "dot", "divide", "mask", "softmax", "weighted sum", "move"
    sources: tuple[str, ...]         # the labels it is computed from


def _cell(name: str, i: int, j: int) -> str:
    return f"{name}[{i}][{j}]"


def attention(n_q: int, n_k: int, d_k: int, d_v: int, hidden: np.ndarray) -> dict[str, Source]:
    """The five steps of the lab for every row (hidden[i][j]: key j is in query i's future)."""
    hidden = np.asarray(hidden, bool)
    out: dict[str, Source] = {}
    for i in range(n_q):
        visible = [j for j in range(n_k) if not hidden[i, j]]
        for j in range(n_k):
            out[_cell("scores", i, j)] = Source("dot", tuple(
                [_cell("q", i, r) for r in range(d_k)] + [_cell("k", j, r) for r in range(d_k)]))
            out[_cell("scaled", i, j)] = Source("divide", (_cell("scores", i, j),))
            out[_cell("masked", i, j)] = Source("mask", () if hidden[i, j] else (_cell("scaled", i, j),))
            out[_cell("weights", i, j)] = Source("softmax", () if hidden[i, j] or len(visible) == 1 else
                                                 tuple(_cell("masked", i, v) for v in visible))
        for c in range(d_v):
            out[_cell("output", i, c)] = Source("weighted sum", tuple(
                [_cell("weights", i, j) for j in visible] + [_cell("v", j, c) for j in visible]))
    return out


# 4.7: each layout of compute.heads.head_layouts and the one it is made from
HEAD_STEPS = (("split", "start"), ("transposed", "split"), ("back", "transposed"), ("merged", "back"),
              ("wrong", "transposed"))


def head_layouts(layouts: Mapping[str, np.ndarray]) -> dict[str, Source]:
    """layouts: name -> the ids at every index of that layout (compute.heads.head_layouts)."""
    out: dict[str, Source] = {}
    for after, before in HEAD_STEPS:
        where = {int(n): idx for idx, n in np.ndenumerate(np.asarray(layouts[before]))}
        for idx, n in np.ndenumerate(np.asarray(layouts[after])):
            out[after + "".join(f"[{k}]" for k in idx)] = Source(
                "move", (before + "".join(f"[{k}]" for k in where[int(n)]),))
    return out


def inputs_of(label: str, sources: Mapping[str, Source]) -> set[str]:
    """The labels with no source of their own that `label` is computed from, through the chain."""
    seen: set[str] = set()
    todo: list[str] = [label]
    found: set[str] = set()
    while todo:
        here = todo.pop()
        if here in seen:
            continue
        seen.add(here)
        if here not in sources:
            found.add(here)
        else:
            todo.extend(sources[here].sources)
    return found - {label} if label in sources else found


def labels_of(name: str, shape: Iterable[int]) -> list[str]:
    return [name + "".join(f"[{k}]" for k in idx) for idx in np.ndindex(*tuple(shape))]
