"""What the dropout clip says: the slots every step shares (1, 0, p and 1/(1-p) as drawn), and
for each case the caption's parts the data chooses and the lecturer's narration, composed from
the clip's words (assets/lang/zh/dropout.json). Every number in them is a slot the NumberBook filled.
"""
from __future__ import annotations

from typing import Any, Sequence

from scenes.kit.text import lang, style
from scenes.kit.text.numbers import NumberBook, Shown

DECIMALS = 6          # the lab's table shows six decimals
MEAN_DECIMALS = 4     # a sampled running mean: 4 decimals, as the rest of the chapter
WORDS = lang.words("dropout")   # the templates, keyed by the case the data chose
NARRATION = WORDS["narration"]  # what the lecturer says, in the book's words where it has them ("masks.kept")
POSITIONS = WORDS["positions"]  # "位置 0、2": a row's zeros (at most five: it sums to 1), one per count
SUMS = WORDS["sums"]            # step 2's caption, second half: "above,below" (kinds that occur), "equal,one"
SAMPLING = WORDS["sampling"]    # step 4's caption: all kept ("train,many": mode, several draws), "once", …
ORDER = ("first", "second", "third", "fourth", "fifth")      # POSITIONS' slots


def short(values: Sequence[float]) -> int:
    """Fewest decimals that show p or 1/(1-p) exactly (0.5, 2, 1.25), else 6."""
    return style.decimals_for(values, (0, 1, 2, 3, 4, 6))


# ------------------------------------------------------------------ the slots every step shares
def one(book: NumberBook) -> Shown:
    """The 1 of 1/(1-p) and of "row sums to 1", recorded where it is drawn."""
    return book.fmt("formula.one", 1, 0)


def zero(book: NumberBook) -> Shown:
    return book.fmt("formula.zero", 0, 0)


def p(book: NumberBook, r: Any) -> Shown:
    return book.fmt("p", r.p, short([r.p]))


def scale(book: NumberBook, r: Any) -> Shown:
    """1/(1-p) as the mode line draws it (train mode only)."""
    return book.fmt("scale", r.scale, short([r.scale]))


def positions(book: NumberBook, which: Sequence[int]) -> Shown:
    shown = [book.index(f"position[{i}]", i) for i in which]
    return book.compose(POSITIONS[len(shown) - 1], **dict(zip(ORDER, shown)))


def sampling_caption(book: NumberBook, r: Any, last: Shown) -> Shown:
    """Step 4's caption: all kept, one draw, the running mean got closer, or it did not."""
    if r.all_kept:
        return book.compose(SAMPLING[r.mode + (",many" if len(r.sample_sums) > 1 else ",one")], draws=last)
    if len(r.checkpoints) == 1 or r.checkpoint_gaps[-1] < r.checkpoint_gaps[0]:
        return book.compose(SAMPLING["once" if len(r.checkpoints) == 1 else "closer"])
    gap = book.fmt(f"gap[{len(r.checkpoints) - 1}]", r.checkpoint_gaps[-1], MEAN_DECIMALS)
    return book.compose(SAMPLING["gap"], draws=last, gap=gap)


def drawn_sums(book: NumberBook, r: Any) -> list[float]:
    """The chosen masks' row sums as drawn (six decimals)."""
    return [float(book.fmt(f"chosen[{k}].sum", s, DECIMALS)) for k, s in enumerate(r.sums)]


def sums_against_one(book: NumberBook, r: Any) -> Shown:
    """What the chosen masks' sums (as drawn) show against 1: step 2's caption, second half."""
    drawn = drawn_sums(book, r)
    kinds = tuple(w for w, hit in (("above", any(v > 1 for v in drawn)), ("below", any(v < 1 for v in drawn)),
                                   ("equal", any(v == 1 for v in drawn))) if hit)
    template = SUMS[",".join(kinds if len(kinds) > 1 else kinds + ("many" if len(drawn) > 1 else "one",))]
    return book.compose(template, one=one(book))


def sampling_says(book: NumberBook, r: Any, last: Shown) -> Shown:
    """Step 4: all kept (eval, p = 0, or by chance), one draw, the gap shrank, or it did not."""
    gaps = [book.fmt(f"gap[{j}]", g, MEAN_DECIMALS) for j, g in enumerate(r.checkpoint_gaps)]
    if r.all_kept:
        if r.mode == "eval":
            return book.compose(NARRATION["sample.eval"], last)
        if r.p == 0:
            return book.compose(NARRATION["sample.none"], p=p(book, r), draws=last)
        return book.compose(NARRATION["sample.lucky"], p=p(book, r), draws=last, scale=scale(book, r))
    if len(r.checkpoints) == 1:
        return book.compose(NARRATION["sample.once"], scale=scale(book, r), gap=gaps[0])
    if r.checkpoint_gaps[-1] < r.checkpoint_gaps[0]:
        return book.compose(NARRATION["sample.closer"], first_gap=gaps[0], draws=last, gap=gaps[-1])
    return book.compose(NARRATION["sample.stuck"], scale(book, r))


def eval_says(book: NumberBook, r: Any) -> Shown:
    """Step 5: with or without the train column (p = 1 in eval mode), with or without zeros."""
    slots = {"zero": zero(book)}
    case = "eval.only" if r.train_row is None else "eval.train"
    if r.train_row is not None:
        slots["train_sum"] = book.fmt("train.sum", r.train_sum, DECIMALS)
    if r.zeros:
        slots["positions"] = positions(book, r.zeros)
    return book.compose(NARRATION[case + (".zeros" if r.zeros else ".check")], **slots)


def made_says(book: NumberBook, r: Any, k: int, i: int) -> Shown:
    """Step 2: the worked entry of mask k at position i as it is made, and its row's sum."""
    slots = {"total": book.fmt(f"chosen[{k}].sum", r.sums[k], DECIMALS)}
    if r.mode == "eval":
        return book.compose(NARRATION["made.eval"], **slots)
    bits = [book.index(f"chosen[{k}].mask[{c}]", int(b)) for c, b in enumerate(r.masks[k])]
    slots.update(mask=book.compose("{}" * len(bits), *bits), position=book.index(f"position[{i}]", i),
                 bit=bits[i], entry=book.fmt(f"chosen[{k}].row[{i}]", r.rows[k][i], DECIMALS))
    if not r.masks[k][i]:
        return book.compose(NARRATION["made.dropped"], **slots)
    return book.compose(NARRATION["made.kept"], weight=book.fmt(f"weights[{i}]", r.weights[i], DECIMALS),
                        scale=scale(book, r), **slots)


def mean_says(book: NumberBook, r: Any, i: int) -> Shown:
    """Step 3: the expectation of position i as Σ P(m)·row, over every mask or the listed ones."""
    every = len(r.ranked) == len(r.table.masks)
    return book.compose(NARRATION["made.mean" if every else "made.mean.some"],
                        position=book.index(f"position[{i}]", i),
                        mean=book.fmt(f"mean_row[{i}]", r.table.mean_row[i], DECIMALS),
                        weight=book.fmt(f"weights[{i}]", r.weights[i], DECIMALS))
