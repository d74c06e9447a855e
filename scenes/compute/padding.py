"""4.4's last paragraph: a padded sequence under the causal mask. With P pads on the left (keys
0..P−1, as a batch padded for generation) or on the right (the last P keys), the key-padding mask
hides the pads from every query; added to the causal mask, it can leave a row with no visible key,
whose softmax is NaN (0 / 0). 如果整行全是负无穷，普通 softmax 会出现 NaN。padding mask 与因果 mask
叠加后也可能产生空行，尤其是左 padding。
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scenes.compute import provenance as sources
from scenes.compute.scores import softmax, weighted_sum

SIDES = ("left", "right")


def pad_keys(n_k: int, pads: int, side: str = "left") -> np.ndarray:
    """[T_k] True where key j is padding: the first `pads` keys (left) or the last (right)."""
    if side not in SIDES:
        raise ValueError(f"side: one of {', '.join(SIDES)}, got {side!r}")
    if not 0 <= pads < n_k:
        raise ValueError(f"pads: 0 <= pads < {n_k} keys, got {pads}")
    j = np.arange(n_k)
    return j < pads if side == "left" else j >= n_k - pads


def padding_mask(n_q: int, n_k: int, pads: int, side: str = "left") -> np.ndarray:
    """Additive key-padding mask: −∞ in every pad key's column, for every query; 0 elsewhere."""
    return np.where(np.broadcast_to(pad_keys(n_k, pads, side), (n_q, n_k)), -np.inf, 0.0)


@dataclass(frozen=True)
class PaddedAttention:
    side: str
    pads: int
    pad_keys: np.ndarray     # [T_k] the pad keys
    padding: np.ndarray      # [T_q, T_k] 0 / −∞: the key-padding mask
    causal: np.ndarray       # [T_q, T_k] 0 / −∞: the causal mask (all 0 with the mask off)
    union: np.ndarray        # padding + causal: −∞ where either hides the key
    by_padding: np.ndarray   # [T_q, T_k] hidden because the key is a pad
    by_future: np.ndarray    # hidden because the key is in the query's future, and not a pad
    hidden: np.ndarray       # union == −∞
    visible: np.ndarray      # [T_q] keys each query still sees (the check the book asks for)
    empty_rows: np.ndarray   # rows with no visible key: their weights are NaN
    weights: np.ndarray      # softmax(scaled + union)
    output: np.ndarray       # weights V (NaN in an empty row)


def padded_attention(scaled, v, pads: int, side: str, future) -> PaddedAttention:
    """The scaled scores [T_q, T_k] under the key-padding mask and `future`, the additive causal
    mask (masking.causal_mask; all 0 with the mask off), together."""
    scaled, v, future = (np.asarray(a, float) for a in (scaled, v, future))
    n_q, n_k = scaled.shape
    padding = padding_mask(n_q, n_k, pads, side)
    union = padding + future
    by_padding, hidden = np.isinf(padding), np.isinf(union)
    weights = softmax(scaled + union)
    visible = np.sum(~hidden, -1)
    return PaddedAttention(side, int(pads), pad_keys(n_k, pads, side), padding, future, union, by_padding,
                           np.isinf(future) & ~by_padding, hidden, visible, np.flatnonzero(visible == 0),
                           weights, weighted_sum(weights, v))


@dataclass(frozen=True)
class PaddingLesson:
    shown: PaddedAttention   # the side asked for
    other: PaddedAttention   # the same pads on the other side, for contrast
    pad_rows: np.ndarray     # queries whose own position is a pad key (cached + i, when aligned)


def padding_lesson(scaled, v, pads: int, side: str, future, cached: int = 0) -> PaddingLesson:
    """The padding step: the side asked for, and the other side with as many pads (future: the
    additive causal mask; cached: positions before the first query)."""
    other = SIDES[1 - SIDES.index(side)]
    shown = padded_attention(scaled, v, pads, side, future)
    n_q = len(shown.visible)
    positions = np.arange(n_q) + cached
    own = np.array([p < len(shown.pad_keys) and shown.pad_keys[p] for p in positions], bool)
    return PaddingLesson(shown, padded_attention(scaled, v, pads, other, future),
                         np.flatnonzero(own))


def provenance(p: PaddingLesson, n_q: int, n_k: int) -> dict[str, sources.Source]:
    """The padding step's numbers: the masks are rules (explained by scenes/pipeline/present/explain.py),
    the union adds them, each visible count counts a row of the union's zeros, the weights are the
    softmax of the scaled scores over the keys left visible, the other side's counts are its own."""
    out: dict[str, sources.Source] = {}
    for i, j in np.ndindex(n_q, n_k):
        cell = f"[{i}][{j}]"
        out["pad_union" + cell] = sources.Source("sum", ("pad_padding" + cell, "pad_causal" + cell))
    for i in range(n_q):
        out[f"pad_visible[{i}]"] = sources.Source("count visible", tuple(f"pad_union[{i}][{j}]" for j in range(n_k)))
        out[f"pad_other_visible[{i}]"] = sources.Source("other side", ())
    out.update(sources.softmax_rows("pad_weights", "scaled", p.shown.hidden))
    return out


def kinds() -> dict:
    """What each padding number with no source is (provenance.kind): the padding mask by its rule
    from the pads, the pad count as given, the empty rows' first and last from the visible counts."""
    made = sources.Made
    return {r"pad_padding\[\d+\]\[\d+\]": made("key padding", ("pad_pads",)), "pad_pads": sources.Given("pad"),
            r"pad_row|pad_first|pad_last": made("rows with no visible key", ("pad_visible[*]",)),
            r"pad_other_row|pad_other_first|pad_other_last": made("rows with no visible key",
                                                                   ("pad_other_visible[*]",))}
