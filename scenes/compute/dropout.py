"""4.6: dropout on one row of weights: one mask, every mask, seeded sampling."""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np

from scenes.compute.provenance import INDEX, Const, Given, Made, Source


def dropout_row(weights, keep, p: float, mode: str = "train") -> np.ndarray:
    """One mask: kept entries x 1/(1-p), dropped -> 0. Eval mode: p = 0, row unchanged."""
    w = np.asarray(weights, float)
    if mode == "eval":
        return w.copy()
    return np.where(np.asarray(keep, bool), w / (1.0 - p), 0.0)


def mask_probability(keep, p: float, mode: str = "train") -> float:
    keep = np.asarray(keep, bool)
    if mode == "eval":
        return float(keep.all())
    return float((1 - p) ** keep.sum() * p ** (~keep).sum())


def all_masks(n: int) -> list:
    """Every keep-mask of length n, bit i keeps entry i: 111 ... 000."""
    return [np.array(bits, bool) for bits in product((1, 0), repeat=n)]


@dataclass(frozen=True)
class DropoutTable:
    weights: np.ndarray
    p: float                 # effective p (0 in eval mode)
    masks: list
    probs: np.ndarray        # probability of each mask
    rows: np.ndarray         # [2^n, n] the row after each mask
    sums: np.ndarray         # each row's sum
    mean_row: np.ndarray     # probability-weighted mean: equals weights
    expected_sum: float


def dropout_table(weights, p: float, mode: str = "train") -> DropoutTable:
    w = np.asarray(weights, float)
    p = 0.0 if mode == "eval" else float(p)
    masks = all_masks(len(w))
    probs = np.array([mask_probability(m, p) for m in masks])
    rows = np.array([dropout_row(w, m, p) for m in masks])
    mean = probs @ rows
    return DropoutTable(w, p, masks, probs, rows, rows.sum(-1), mean, float(probs @ rows.sum(-1)))


@dataclass(frozen=True)
class DropoutSamples:
    masks: np.ndarray        # [N, n] bool, drawn i.i.d. keep ~ Bernoulli(1 - p)
    rows: np.ndarray         # [N, n]
    running_mean: np.ndarray  # [N, n]: mean of the first i+1 rows


def sample_dropout(weights, p: float, samples: int, seed: int = 0, mode: str = "train") -> DropoutSamples:
    """nn.Dropout semantics: zero each entry with probability p, scale the rest by 1/(1-p).
    Seeding: numpy's default_rng(seed); entry i of sample k is kept when random()[k, i] >= p."""
    w = np.asarray(weights, float)
    p = 0.0 if mode == "eval" else float(p)
    rng = np.random.default_rng(seed)
    masks = rng.random((samples, len(w))) >= p
    rows = np.where(masks, w / (1.0 - p), 0.0)
    running = np.cumsum(rows, 0) / np.arange(1, samples + 1)[:, None]
    return DropoutSamples(masks, rows, running)


@dataclass(frozen=True)
class DropoutLesson:
    """Everything the dropout clip shows (4.6 and its lab), for one set of inputs."""
    weights: np.ndarray
    weight_sum: float        # 1 before dropout
    mode: str
    p: float                 # as configured (ignored in eval mode)
    p_eff: float             # 0 in eval mode
    scale: float             # 1 / (1 - p_eff)
    masks: list              # the chosen masks, one at a time
    rows: np.ndarray         # [k, n] each chosen mask's row
    sums: np.ndarray         # [k]
    probs: np.ndarray        # [k] each chosen mask's probability
    table: DropoutTable      # every mask
    prob_total: float        # the table's probabilities add up to 1
    sampled: DropoutSamples
    sample_sums: np.ndarray  # [N] each sampled row's sum
    checkpoints: tuple       # sample counts at which the running mean is shown
    checkpoint_means: np.ndarray  # [len(checkpoints), n] the running mean after that many samples
    train_row: object        # first chosen mask in train mode at the configured p (None if p = 1)
    train_sum: object
    eval_p: float            # eval mode's effective p: 0
    eval_row: np.ndarray     # eval mode: the row unchanged
    eval_sum: float
    zeros: tuple             # positions whose weight is 0: they stay 0
    ranked: tuple            # the masks listed: all (in order) when they fit, else the SHOWN most probable
    rest_prob: float         # the probability of every other mask together
    checkpoint_gaps: np.ndarray  # [len(checkpoints)] max |running mean - weight| at each checkpoint
    all_kept: bool           # every sampled mask kept every entry
    listed_samples: int      # the sampled rows listed: the first SHOWN, or all of them
    tallest: float           # the largest weight or running mean (the bars' common scale)


SHOWN = 8                    # masks listed in the table of every mask
CHECKPOINTS = (1, 2, 5, 10, 20, 50, 100, 200)   # sample counts shown, below N, then N itself


def dropout_lesson(weights, p: float, mode: str, masks: list, samples: int, seed: int = 0) -> DropoutLesson:
    w = np.asarray(weights, float)
    p_eff = 0.0 if mode == "eval" else float(p)
    rows = np.array([dropout_row(w, m, p, mode) for m in masks]).reshape(len(masks), len(w))
    table = dropout_table(w, p, mode)
    sampled = sample_dropout(w, p, samples, seed, mode)
    checkpoints = tuple(c for c in CHECKPOINTS if c < samples) + (samples,)
    means = sampled.running_mean[[c - 1 for c in checkpoints]]
    order = range(len(table.masks)) if len(table.masks) <= SHOWN else np.argsort(-table.probs, kind="stable")
    ranked = tuple(int(k) for k in order[:SHOWN])
    train = dropout_row(w, masks[0], p) if masks and p < 1 else None
    eval_row = dropout_row(w, None, p, "eval")
    return DropoutLesson(
        weights=w, weight_sum=float(w.sum()), mode=mode, p=float(p), p_eff=p_eff,
        scale=1.0 / (1.0 - p_eff), masks=list(masks), rows=rows, sums=rows.sum(-1),
        probs=np.array([mask_probability(m, p, mode) for m in masks]), table=table,
        prob_total=float(table.probs.sum()), sampled=sampled, sample_sums=sampled.rows.sum(-1),
        checkpoints=checkpoints,
        checkpoint_means=means, train_row=train,
        train_sum=None if train is None else float(train.sum()),
        eval_p=0.0, eval_row=eval_row, eval_sum=float(eval_row.sum()),
        zeros=tuple(int(i) for i in np.flatnonzero(w == 0)), ranked=ranked,
        rest_prob=float(np.delete(table.probs, list(ranked)).sum()),
        checkpoint_gaps=np.abs(means - w).max(-1), all_kept=bool(sampled.masks.all()),
        listed_samples=min(samples, SHOWN), tallest=float(max(means.max(), w.max())))


# ------------------------------------------------------------------ where each number comes from
def _row(prefix: str, mask, scale: str | None, i: int) -> Source:
    """Entry i of a row after a mask: kept -> its bit, its weight, 1/(1-p) (the `scale` label;
    None when the scale is the constant 1 of p = 0, as in eval mode's table); dropped -> its bit only."""
    bit = f"{prefix}.mask[{i}]"
    if not mask[i]:
        return Source("keep", (bit,))
    return Source("keep", (bit, f"weights[{i}]") + ((scale,) if scale else ()))


def _rows(out: dict, prefix: str, masks, n: int, scale: str | None, probability: bool, p: str | None) -> None:
    for k, mask in enumerate(masks):
        name = f"{prefix}[{k}]"
        for i in range(n):
            out[f"{name}.row[{i}]"] = _row(name, mask, scale, i)
        out[f"{name}.sum"] = Source("sum", tuple(f"{name}.row[{i}]" for i in range(n)))
        if probability:
            out[f"{name}.prob"] = Source("probability", tuple(f"{name}.mask[{i}]" for i in range(n))
                                         + ((p,) if p else ()))


def provenance(r: DropoutLesson) -> dict[str, Source]:
    """Each computed label the clip draws <- the labels it is made from (Source(op, sources)).
    Inputs: weights[i], p and the masks' bits (chosen[k].mask[i], table[k].mask[i],
    sample[k].mask[i]). Train mode's scale is scale <- p; eval mode ignores p (p_eff = 0)."""
    n, train = len(r.weights), r.mode == "train"
    weights = tuple(f"weights[{i}]" for i in range(n))
    out: dict[str, Source] = {"weight_sum": Source("sum", weights),
                              "p_eff": Source("copy", ("p",)) if train else Source("constant", ())}
    if r.p < 1:
        out["scale"] = Source("divide", ("p",))
    scale = "scale" if train else None       # eval mode's rows use p_eff = 0: a constant scale of 1
    if train:
        _rows(out, "chosen", r.masks, n, scale, True, "p")
    else:                  # the masks are ignored: each row is the original one
        for k in range(len(r.masks)):
            for i in range(n):
                out[f"chosen[{k}].row[{i}]"] = Source("eval", (weights[i],))
            out[f"chosen[{k}].sum"] = Source("sum", tuple(f"chosen[{k}].row[{i}]" for i in range(n)))
            out[f"chosen[{k}].prob"] = Source("probability",
                                              tuple(f"chosen[{k}].mask[{i}]" for i in range(n)))
    _rows(out, "table", r.table.masks, n, scale, True, "p" if train else None)
    every = range(len(r.table.masks))
    for i in range(n):
        out[f"mean_row[{i}]"] = Source("weighted sum", tuple(
            [f"table[{k}].prob" for k in every] + [f"table[{k}].row[{i}]" for k in every]))
    out["expected_sum"] = Source("weighted sum", tuple([f"table[{k}].prob" for k in every]
                                                       + [f"table[{k}].sum" for k in every]))
    out["prob_total"] = Source("sum", tuple(f"table[{k}].prob" for k in every))
    rest = [k for k in every if k not in r.ranked]
    if rest:
        out["rest_prob"] = Source("sum", tuple(f"table[{k}].prob" for k in rest))
    _samples(out, r, n, scale)
    if r.train_row is not None:          # step 5: the first mask at the configured p
        for i in range(n):
            out[f"train.row[{i}]"] = _row("chosen[0]", r.masks[0], "scale", i)
        out["train.sum"] = Source("sum", tuple(f"train.row[{i}]" for i in range(n)))
    for i in range(n):
        out[f"eval.row[{i}]"] = Source("eval", (weights[i],))
    out["eval.sum"] = Source("sum", tuple(f"eval.row[{i}]" for i in range(n)))
    out["eval.p_eff"] = Source("constant", ())
    return out


def _samples(out: dict, r: DropoutLesson, n: int, scale: str | None) -> None:
    """The sampled rows (not drawn: their sums and running means are), the running mean at each
    checkpoint and its largest gap to the row (the entry where it is largest: first on ties)."""
    masks = r.sampled.masks
    _rows(out, "sample", masks, n, scale, False, None)
    for j, c in enumerate(r.checkpoints):
        for i in range(n):
            out[f"running_mean@{c}[{i}]"] = Source("mean", tuple(f"sample[{k}].row[{i}]" for k in range(c)))
        worst = int(np.argmax(np.abs(r.checkpoint_means[j] - r.weights)))
        out[f"gap[{j}]"] = Source("max abs difference", (f"running_mean@{c}[{worst}]", f"weights[{worst}]"))


# what each number with no source is (provenance.kind): the masks named, listed or drawn, their counts
KINDS = {r"formula\.(one|zero)": Const("a mask bit: kept 1, dropped 0"),
         r"chosen\[\d+\]\.mask\[\d+\]": Given("masks"),
         r"table\[\d+\]\.mask\[\d+\]": Const("every mask, in order"),
         r"sample\[\d+\]\.mask\[\d+\]": Made("dropout draw", ("p", "seed")),
         r"sample\[\d+\]": Const(INDEX),
         r"mask_count": Made("two to the n", ("weights[*]",)),
         r"listed_masks|listed_samples": Const("the rows a table lists"),
         r"rest_count": Made("subtract", ("mask_count", "listed_masks")),
         r"checkpoint\[\d+\]": Const("the sample counts the table lists, up to the samples drawn")}
