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
    run(name, n_q, n_k, d_k, d_v, hidden, names) -> name[i][c] <- the inputs (names: q, k, v) the
        attention output of query i depends on, through those five steps (op "attention")
    softmax_rows(name, of, hidden), row_sums(name, of, n_rows, n_cols): a row's softmax, its sum
    inputs_of(label, sources) -> the input labels (those with no source) a label depends on
    flat(label, sources) -> the same, in the order the chain names them
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np


@dataclass(frozen=True)
class Source:
    op: str                          # "dot", "divide", "mask", "softmax", "weighted sum", "move"
    sources: tuple[str, ...]         # the labels it is computed from


def _cell(name: str, i: int, j: int) -> str:
    return f"{name}[{i}][{j}]"


def attention(n_q: int, n_k: int, d_k: int, d_v: int, hidden: np.ndarray, names: tuple = ("q", "k", "v"),
              prefix: str = "") -> dict[str, Source]:
    """The five steps of the lab for every row (hidden[i][j]: key j is in query i's future); the
    inputs called `names`, the steps' labels after `prefix`."""
    hidden = np.asarray(hidden, bool)
    q, k, v = names
    step = {n: prefix + n for n in ("scores", "scaled", "masked", "weights", "output")}
    out: dict[str, Source] = {}
    for i in range(n_q):
        visible = [j for j in range(n_k) if not hidden[i, j]]
        for j in range(n_k):
            out[_cell(step["scores"], i, j)] = Source("dot", tuple(
                [_cell(q, i, r) for r in range(d_k)] + [_cell(k, j, r) for r in range(d_k)]))
            out[_cell(step["scaled"], i, j)] = Source("divide", (_cell(step["scores"], i, j),))
            out[_cell(step["masked"], i, j)] = Source("mask", () if hidden[i, j] else (_cell(step["scaled"], i, j),))
        out.update(softmax_rows(step["weights"], step["masked"], hidden[i:i + 1], row=i))
        for c in range(d_v):
            out[_cell(step["output"], i, c)] = Source("weighted sum", tuple(
                [_cell(step["weights"], i, j) for j in visible] + [_cell(v, j, c) for j in visible]))
    return out


def softmax_rows(name: str, of: str, hidden: np.ndarray, row: int = 0) -> dict[str, Source]:
    """name[i][j] <- the visible entries of[i][*] (none when hidden, and none when one is
    visible: its weight is 1 whatever its score); the rows numbered from `row`."""
    hidden = np.asarray(hidden, bool)
    out: dict[str, Source] = {}
    for n, line in enumerate(hidden):
        i, visible = row + n, [j for j, h in enumerate(line) if not h]
        for j, h in enumerate(line):
            out[_cell(name, i, j)] = Source("softmax", () if h or len(visible) == 1 else
                                            tuple(_cell(of, i, v) for v in visible))
    return out


def row_sums(name: str, of: str, n_rows: int, n_cols: int) -> dict[str, Source]:
    """name[i] <- of[i][*]: each row's sum."""
    return {f"{name}[{i}]": Source("sum", tuple(_cell(of, i, j) for j in range(n_cols))) for i in range(n_rows)}


def run(name: str, n_q: int, n_k: int, d_k: int, d_v: int, hidden: np.ndarray,
        names: tuple = ("q", "k", "v")) -> dict[str, Source]:
    """name[i][c] <- the inputs the attention output [i][c] depends on (op "attention"; a row with
    no visible key: a weighted sum of nothing, NaN)."""
    chain = attention(n_q, n_k, d_k, d_v, hidden, names, prefix=name + ".")
    out: dict[str, Source] = {}
    for i, c in np.ndindex(n_q, d_v):
        src = flat(_cell(name + ".output", i, c), chain)
        out[_cell(name, i, c)] = Source("attention" if src else "weighted sum", src)
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


def flat(label: str, sources: Mapping[str, Source]) -> tuple[str, ...]:
    """inputs_of(label, sources), in the order the chain first names them."""
    found: list[str] = []
    seen: set[str] = set()

    def walk(here: str) -> None:
        for s in sources[here].sources:
            if s in seen:
                continue
            seen.add(s)
            if s in sources:
                walk(s)
            else:
                found.append(s)
    walk(label)
    return tuple(found)


def labels_of(name: str, shape: Iterable[int]) -> list[str]:
    return [name + "".join(f"[{k}]" for k in idx) for idx in np.ndindex(*tuple(shape))]


# -- what a number with no source is: an input (`given`) or a constant (`const`, and why)
PLAIN = re.compile(r"^([a-z_]+)((?:\[\d+\])*)$")     # name[i][j]: an input's own label
AT = re.compile(r"\[(\d+)\]")
INDEX, SHAPE, SECTION, BOOK = "index", "shape", "section", "a constant the book prints"


def entry(inputs: Mapping[str, Any], name: str, at: Iterable[int]) -> Any:
    """inputs[name][i][j]...; None where there is no such entry."""
    value: Any = inputs.get(name)
    try:
        for k in at:
            value = value[k]
    except (TypeError, IndexError, KeyError):
        return None
    return value


def same(a: Any, b: Any) -> bool:
    """A recorded value (numbers, "-inf"/"nan" strings) equals an input's entry."""
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    try:
        x, y = float(a), float(b)
    except (TypeError, ValueError):
        return a == b
    return (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-15)


def given_option(label: str, value: Any, inputs: Mapping[str, Any]) -> str | None:
    """The input option a label shows (its name, as the manifest's `inputs` key): the label is the
    option's own (q[1][0], delta) and its value is that option's entry."""
    found = PLAIN.match(label)
    if not found or found.group(1) not in inputs:
        return None
    at = [int(k) for k in AT.findall(found.group(2))]
    return found.group(1) if same(entry(inputs, found.group(1), at), value) else None


@dataclass(frozen=True)
class Given:
    """The number is the input option `option` (its entry `at`, or at the label's own indices:
    chosen[1].mask[0] of masks is masks[1][0])."""
    option: str
    at: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Const:
    """A constant, and why it is one: an index, a shape, a section, a value the lesson fixes."""
    why: str


@dataclass(frozen=True)
class Made:
    """Computed by `op` from `sources`: templates, {0} {1} … the label's indices, a `*` any index
    of a drawn label (mask[{0}][*]: the row's drawn cells)."""
    op: str
    sources: tuple[str, ...] = ()


Says = Mapping[str, "Given | Const | Made"]


def kind(label: str, value: Any, made_as: str | None, inputs: Mapping[str, Any], says: Says = {},
         drawn: Mapping[str, int] = {}, step: int | None = None) -> dict[str, Any]:
    """What a record with no Source is: {"given": option}, {"const": why} or {"op", "from"}; {}
    where nothing says. says: the clip's word for a label (a regular expression matching the
    whole label); an option is named only where the value is its entry. Else the rules: a label
    that is an option's own (q[1][0], delta) and holds its entry is given; a section id, a book's
    constant, a position named by itself (key[2] = 2) and a shape drawn by index() are const."""
    for pattern, word in says.items():
        found = re.fullmatch(pattern, label)
        if not found:
            continue
        at = [int(k) for k in AT.findall(label)]
        if isinstance(word, Given):
            where = word.at if word.at is not None else at
            return {"given": word.option} if same(entry(inputs, word.option, where), value) else {}
        if isinstance(word, Const):
            return {"const": word.why}
        return {"op": word.op, "from": _filled(word.sources, at, [d for d, n in drawn.items()
                                                                  if step is None or n <= step])}
    option = given_option(label, value, inputs)
    if option is not None:
        return {"given": option}
    if made_as == SECTION or label == "const":
        return {"const": SECTION if made_as == SECTION else BOOK}
    at = AT.findall(label)
    if made_as == INDEX and at and isinstance(value, int) and value == int(at[-1]):
        return {"const": INDEX}
    if made_as == INDEX and re.search(r"(^|[._])shape[\[.]", label):
        return {"const": SHAPE}
    return {}


def _filled(templates: Iterable[str], at: list[int], drawn: Iterable[str]) -> list[str]:
    """The templates with the label's indices in; a `*` stands for each drawn label that fits
    (drawn: those drawn by the record's step)."""
    out: list[str] = []
    for t in templates:
        name = t.format(*at)
        if "*" in name:
            pattern = re.compile(re.escape(name).replace(r"\*", r"\d+"))
            out += [d for d in drawn if pattern.fullmatch(d) and d not in out]
        else:
            out.append(name)
    return out

