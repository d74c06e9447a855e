"""The expressions of explain.py: how a computed number is made, written twice from its record's
sources, once with their labels and once with the values as drawn (`{op: expression}`)."""
from __future__ import annotations

import re
from typing import Callable

INDEX = re.compile(r"\[(\d+)\]")
LAST = re.compile(r"^(.*)\[\d+\]$")
LONG = 12                                            # a list longer than this keeps 3, …, the last
TOKEN = re.compile(r"[A-Za-z_][\w.]*(?:\[\d+\])+")       # a label with its indices
SUB = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def indices(label: str) -> list[int]:
    return [int(k) for k in INDEX.findall(label)]


def shortened(items: list[str]) -> list[str]:
    return items if len(items) <= LONG else items[:3] + ["…"] + items[-1:]


def joined(items: list[str], sep: str) -> str:
    return sep.join(shortened(items))


def groups(labels: list[str]) -> list[list[str]]:
    """Labels grouped by what precedes their last index (q[1][*], k[0][*]), in order."""
    out: dict[str, list[str]] = {}
    for label in labels:
        found = LAST.match(label)
        out.setdefault(found.group(1) if found else label, []).append(label)
    return list(out.values())


def pairs(labels: list[str]) -> list[tuple[str, str]]:
    """A dot product's or weighted sum's factors: the first half with the second (one group:
    each with itself, as x1·x1)."""
    parts = groups(labels)
    if len(parts) == 1:
        return [(a, a) for a in labels]
    half = len(labels) // 2
    return list(zip(labels[:half], labels[half:]))


def own(label: str, sources: list[str]) -> str | None:
    """The source at the result's own index (softmax's e^{s_j}, the mean's s_j)."""
    mine = indices(label)
    return next((s for s in sources if indices(s) == mine), None)


# -- expressions: (with labels, with drawn values) from the sources' labels and texts
Expression = Callable[[str, list[str], dict[str, str], dict], tuple[str, str]]


def products(pairs_: list[tuple[str, str]], t: dict[str, str]) -> tuple[str, str]:
    return (joined([f"{a}·{b}" for a, b in pairs_], " + "),
            joined([f"{t[a]} · {t[b]}" for a, b in pairs_], " + "))


def dot(label, src, t, m):
    return products(pairs(src), t)


def product(label, src, t, m):
    factors = src if len(src) > 1 else src * 2
    return " · ".join(factors), " · ".join(t[s] for s in factors)


def divide(label, src, t, m):
    if len(src) == 2:
        return f"{src[0]} / {src[1]}", f"{t[src[0]]} / {t[src[1]]}"
    if label == "scale":                                  # dropout's 1/(1−p)
        return f"1 / (1 − {src[0]})", f"1 / (1 − {t[src[0]]})"
    scale = m["records"].get("scale")
    return f"{src[0]} / √dₖ", f"{t[src[0]]} / {scale['text'] if scale else '√dₖ'}"


def exp(label, src, t, m):
    return f"exp({src[0]})", f"exp({t[src[0]]})"


def total(label, src, t, m):
    return joined(src, " + "), joined([t[s] for s in src], " + ")


def softmax(label, src, t, m):
    mine = own(label, src)
    if mine is None:
        return f"softmax({joined(src, ', ')})", f"softmax({joined([t[s] for s in src], ', ')})"
    return (f"exp({mine}) / Σ exp({joined(src, ', ')})",
            f"exp({t[mine]}) / ({joined([f'exp({t[s]})' for s in src], ' + ')})")


def mean_off(label, src, t, m):
    mine = own(label, src) or src[0]
    return f"{mine} − mean({joined(src, ', ')})", f"{t[mine]} − mean({joined([t[s] for s in src], ', ')})"


def masked(label, src, t, m):
    return f"{src[0]} + 0", f"{t[src[0]]} + 0"


def gap(label, src, t, m):
    two = pairs(src) if len(src) > 2 else [(src[0], src[-1])]
    if len(two) == 1:
        a, b = two[0]
        return f"|{a} − {b}|", f"|{t[a]} − {t[b]}|"
    return (f"max({joined([f'|{a} − {b}|' for a, b in two], ', ')})",
            f"max({joined([f'|{t[a]} − {t[b]}|' for a, b in two], ', ')})")


def extreme(name):
    def expression(label, src, t, m):
        if len(src) == 1:                 # the one it picks: the largest (or least) of its grid
            return f"{name}({src[0].split('[')[0]}) → {src[0]}", t[src[0]]
        return f"{name}({joined(src, ', ')})", f"{name}({joined([t[s] for s in src], ', ')})"
    return expression


def negate(label, src, t, m):
    return f"−{src[0]}", f"−({t[src[0]]})" if t[src[0]].startswith("−") else f"−{t[src[0]]}"


def count(label, src, t, m):
    return " · ".join(src), " · ".join(t[s] for s in src)


def visible(label, src, t, m):
    return f"#({joined(src, ', ')} ≠ −∞)", f"#({joined([t[s] for s in src], ', ')} ≠ −∞)"


def same(label, src, t, m):
    return src[0], t[src[0]]


EXPRESSIONS: dict[str, Expression] = {
    "dot": dot, "product": product, "keep": product, "divide": divide, "exp": exp, "sum": total,
    "softmax": softmax, "weighted sum": lambda label, src, t, m: products(pairs(src), t),
    "subtract mean": mean_off, "mask": masked, "max abs difference": gap, "max": extreme("max"), "min": extreme("min"),
    "eval": same, "copy": same, "negate": negate, "count": count, "count visible": visible}


def symbol(label: str, table: dict[str, str]) -> str | None:
    """A label as the book writes it (explain.json's symbols: `weights` -> α{0}), its indices
    as subscripts (weights[2][0] -> α₂); None when the table has no symbol for it."""
    found = LAST.match(label) and TOKEN.fullmatch(label)
    template = table.get(label.split("[")[0]) if found else None
    return template.format(*[str(k).translate(SUB) for k in indices(label)]) if template else None


def in_symbols(expression: str, table: dict[str, str]) -> str | None:
    """An expression of labels written in symbols; None when one of them has no symbol."""
    labels = TOKEN.findall(expression)
    written = {label: symbol(label, table) for label in labels}
    if not all(written.values()):
        return None
    return TOKEN.sub(lambda g: written[g[0]] or g[0], expression)
