"""What each drawn number is made of, in words, from its manifest: the presenter page shows it when
a number of the paused frame is clicked (explain.js only displays), and the handout lists each
step's derivations under its frame.

Every number item of a step's layout gets a note, by the first rule that fits:
  computed   the record's `from` and `op` (scenes/compute/provenance.py and each clip's compute
             module): the expression with the labels, then with the drawn values;
  constant   an `op` with no source (a masked score is −∞, a lone visible key's weight is 1, …);
  given      a `given` field, or a label that names an input option and holds its entry;
  rule       a number the clips draw by a fixed rule (the mask M, the ids of 4.7, dropout's masks);
  index      a whole number that is its own position (name[2] = 2);
  none       nothing says where it comes from: the note says so, and tests count it a failure.
A source drawn at the step or before is named (outlined where the frame shows it, else listed with
its step); a source never drawn is counted as not drawn. The words are assets/lang/zh/explain.json
and their translations (scenes/kit/text/lang.py).
"""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any, Callable

from scenes.kit.text.lang import SOURCE, tr, words
from scenes.pipeline.present.formulas import EXPRESSIONS, in_symbols, indices, joined, symbol

SCRIPT = Path(__file__).with_name("explain.js")     # the page's code for it, inlined in the page
PLAIN = re.compile(r"^([a-z_]+)((?:\[\d+\])*)$")
HOW = {"split": "view(B, T, H, d)", "transposed": "transpose(1, 2)", "back": "transpose(1, 2)",
       "merged": "reshape(B, T, D)", "wrong": "reshape(B, T, D)"}     # 4.7: provenance.HEAD_STEPS


def say(key: str, lang: str, **slots: Any) -> str:
    """A template of explain.json (a dotted key) in `lang`, its named slots filled."""
    node: Any = words("explain")
    for part in key.split("."):
        node = node[part]
    return tr(node, lang).format(**{k: str(v) for k, v in slots.items()})


# -- the rules for numbers without sources
def given(label: str, rec: dict, m: dict, lang: str) -> str | None:
    if rec.get("given"):
        return say("given.value", lang, option=str(rec["given"]).lstrip("-"))
    found = PLAIN.match(label)
    if not found or m["inputs"].get(found.group(1)) is None:
        return None
    value: Any = m["inputs"][found.group(1)]
    at = indices(label)
    try:
        for k in at:
            value = value[k]
        if not math.isclose(float(value), float(rec["value"]), rel_tol=1e-9, abs_tol=1e-12):
            return None
    except (TypeError, ValueError, IndexError, KeyError):
        return None
    option = found.group(1).replace("_", "-")
    if len(at) == 2:
        return say("given.cell", lang, option=option, i=at[0], j=at[1])
    return say("given.entry", lang, option=option, i=at[0]) if at else say("given.value", lang, option=option)


def mask_rule(label, rec, m, lang, name, extra):
    i, j = indices(label)[-2:]
    if name in ("mask", "zeros.masked", "diag.masked"):
        d = int(extra) if extra else (0 if name == "diag.masked" else m["inputs"].get("diagonal", 1))
        if rec["value"] == "-inf" and j <= i:              # diagonal=0: the query's own key too
            return say("mask.diagonal", lang, label=label, text=rec["text"], i=i, j=j)
        return say("mask.hidden" if rec["value"] == "-inf" else "mask.open", lang, label=label,
                   text=rec["text"], d=d, i=i, j=j)
    if name == "cache_allowed":
        return say("mask.cache", lang, label=label, text=rec["text"], c=m["inputs"].get("cached", 0), i=i, j=j)
    return say("mask.fresh", lang, label=label, text=rec["text"])


def pad_rule(label, rec, m, lang):
    """A cell of the key-padding mask (4.4's last paragraph): −∞ in a pad key's column, for every query."""
    i, j = indices(label)[-2:]
    side, pads = m["inputs"].get("pad_side", "left"), m["inputs"].get("pad", 0)
    key = "mask.padding" if rec["value"] == "-inf" else "mask.unpadded"
    return say(key, lang, label=label, text=rec["text"], i=i, j=j, pads=pads, side=say(f"side.{side}", lang))


RULES: list[tuple[re.Pattern, Callable[..., str]]] = [
    (re.compile(r"^pad_padding\[\d+\]\[\d+\]$"), lambda g, label, rec, m, lang: pad_rule(label, rec, m, lang)),
    (re.compile(r"^(k|v)_changed\[(\d+)\]\[(\d+)\]$"),
     lambda g, label, rec, m, lang: say("given.changed", lang, option=g[1], i=g[2], j=g[3])),
    (re.compile(r"^(mask|zeros\.masked|diag\.masked|cache_allowed|fresh)(?:_diagonal(\d+))?\[\d+\]\[\d+\]$"),
     lambda g, label, rec, m, lang: mask_rule(label, rec, m, lang, g[1], g[2])),
    (re.compile(r"^(scale|checkpoint\[\d+\])$"),
     lambda g, label, rec, m, lang: say("constant", lang, label=label, text=rec["text"])),
    (re.compile(r"^start\[\d+\]\[\d+\]\[\d+\]$"),
     lambda g, label, rec, m, lang: say("element", lang, n=rec["text"])),
    (re.compile(r"^(chosen|table|sample)\[(\d+)\]\.mask\[(\d+)\]$"),
     lambda g, label, rec, m, lang: say(f"dropout_mask.{g[1]}", lang, i=g[2], j=g[3])),
]


def without_sources(label: str, rec: dict, m: dict, lang: str) -> tuple[str, str]:
    """(kind, line) for a number whose record names no source."""
    op, text = rec.get("op"), rec["text"]
    if op == "mask":
        i, j = indices(label)[-2:]
        diagonal = m["inputs"].get("diagonal", 1) == 0 and i == j
        return "constant", say("mask.diagonal" if diagonal else "mask.masked", lang, label=label, text=text, i=i, j=j)
    if op in ("softmax", "weighted sum"):
        case = ("output" if op == "weighted sum" else "empty") if rec["value"] == "nan" else \
            ("hidden" if rec["value"] == 0 else "only")
        return "constant", say(f"weights.{case}", lang, label=label, text=text)
    if op in words("explain")["fixed"]:                # a constant of the lesson, said what it is
        return "constant", say("with", lang, label=label, text=text, why=say(f"fixed.{op}", lang))
    if op == "constant":
        return "constant", say("constant", lang, label=label, text=text)
    line = given(label, rec, m, lang)
    if line:
        return "given", say("with", lang, label=label, text=text, why=line)
    for pattern, rule in RULES:
        found = pattern.match(label)
        if found:
            return "rule", rule(found, label, rec, m, lang)
    at = indices(label)
    if isinstance(rec["value"], int) and rec.get("decimals") is None and len(at) == 1 and rec["value"] == at[0]:
        return "index", say("with", lang, label=label, text=text, why=say("index", lang, i=text))
    if "const" in rec:                                 # the manifest says it is a constant
        return "constant", say("constant", lang, label=label, text=text)
    return "none", say("none", lang, label=label, text=text)


def op_name(op: str, lang: str) -> str:
    """An operation as the catalogue says it (explain.json's ops), else its own name."""
    return say(f"ops.{op}", lang) if op in words("explain")["ops"] else op


def note(label: str, rec: dict, m: dict, step: int, lang: str) -> dict:
    """{kind, lines, sources (named: drawn at the step or before), unseen (never drawn)}."""
    src = [s for s in rec.get("from") or []]
    if not src:
        kind, line = without_sources(label, rec, m, lang)
        return {"kind": kind, "lines": [line], "sources": [], "unseen": []}
    records = m["records"]
    named = [s for s in src if s in records and records[s]["step"] <= step]
    unseen = [s for s in src if s not in named]
    texts = {s: records[s]["text"] for s in named}
    op = rec.get("op") or ""
    if op == "move":
        before, after = indices(src[0]), indices(label)
        lines = [f"e{rec['text']} → [{', '.join(map(str, after))}] ({HOW.get(label.split('[')[0], op)})",
                 say("move", lang, label=label, text=rec["text"], before=src[0])]
        return {"kind": "computed", "lines": lines, "sources": named, "unseen": unseen}
    shown = EXPRESSIONS.get(op)
    if shown and not unseen:
        symbols, values = shown(label, src, texts, m)
        lines = [f"{label} = {symbols} = {values} = {rec['text']}"]
        table = words("explain")["symbols"].get(m.get("scene"), {})
        mine, written = symbol(label, table), in_symbols(symbols, table)
        if mine and written:                  # as the book writes it first: α₀ = e^{s₀} / Σ e^{sⱼ} = …
            lines.insert(0, f"{mine} = {written} = {values} = {rec['text']}")
    else:
        listed = joined([f"{s} = {texts[s]}" for s in named], ", ")
        made = say("computed", lang, label=label, sources=listed, op=op_name(op, lang)) if named else \
            say("computed_unseen", lang, label=label, op=op_name(op, lang))
        lines = [made, f"{label} = {rec['text']}"]
    if unseen:
        lines.append(say("unseen", lang, n=len(unseen), labels=joined(unseen, ", ")))
    return {"kind": "computed", "lines": lines, "sources": named, "unseen": unseen}


def records_of(manifest: dict) -> dict[str, dict]:
    """label -> its record (the first with a source where a label is recorded more than once)."""
    out: dict[str, dict] = {}
    for rec in manifest["numbers"]:
        if rec["label"] not in out or (rec.get("from") and not out[rec["label"]].get("from")):
            out[rec["label"]] = rec
    return out


def step_explained(manifest: dict, step: int) -> dict:
    """What the page needs for one step's last frame: its number items (box and note), each note's
    lines, the items it outlines (its sources in this frame) and its sources drawn before."""
    lang = manifest.get("lang", SOURCE)
    m = dict(manifest, records=records_of(manifest))
    layout: dict = next((s for s in manifest.get("layout", []) if s["step"] == step), {"items": []})
    items = [it for it in layout["items"] if it.get("kind") == "number" and it.get("label") in m["records"]]
    order: dict[str, int] = {}
    notes: list[dict] = []
    for it in items:
        if it["label"] not in order:
            order[it["label"]] = len(notes)
            notes.append(note(it["label"], m["records"][it["label"]], m, step, lang))
    here = {it["label"] for it in items}
    for n in notes:
        n["lit"] = [k for k, it in enumerate(items) if it["label"] in n["sources"]]
        n["earlier"] = [say("earlier", lang, label=s, text=m["records"][s]["text"], step=m["records"][s]["step"])
                        for s in n["sources"] if s not in here]
    return {"frame": [manifest["frame"]["width"], manifest["frame"]["height"]],
            "items": [[*it["box"], order[it["label"]], it["label"]] for it in items], "notes": notes}


def page_words(lang: str) -> dict[str, str]:
    return {key: say(f"panel.{key}", lang) for key in ("title", "lit", "close")}


def derivations(manifest: dict, step: int) -> list[str]:
    """The expressions a step makes in front of the viewer, as drawn (the handout lists them)."""
    out = []
    for rec in manifest["numbers"]:
        d = rec.get("derivation") or {}
        if d.get("step") == step and d.get("expression") and d.get("where") != "none":
            if d["expression"] not in out:
                out.append(d["expression"])
    return out
