"""The legibility contract (docs/proof.md, "What every frame promises") and the number check (its
values: tests/support/contract_values.py, re-exported here), read from a clip's manifest: its `layout`
(boxes at the end of each step) and `numbers`.

    layout_problems(manifest)          -> list of broken rules, empty when the frame is fine
    oracle_problems(records, expected) -> numbers that differ from the oracle, or that no oracle checks;
                                          a number's text must be exactly the oracle's value drawn by
                                          the display rules (tests/support/formatting.py) at its precision
    precision_problems(manifest, expected) -> precisions the display rules do not allow
    structure_problems(manifest, expected, names, marks) -> grid entries off their cells, axis labels
                                          off their rows or naming the wrong index, marks on the wrong cells
    colour_problems(manifest, expected, marks, roles) -> items drawn in a colour that says something
                                          else than the oracle (the tracked element, a query, a −∞ cell)
    cell_problems(manifest)             -> cells of a grid on screen that show no entry
"""
import math
import re
import unicodedata
from collections import defaultdict

from support.contract_values import _value, oracle_problems, precision_problems  # noqa: F401  (re-exported)

MIN_NUMBER_HEIGHT = 0.15    # frame units: 20 px at 1080p, 7 px at 480p
MAX_NUMBER_CHARS = 10
EPS = 0.01                  # boxes may touch
CUT_WIDTH = 7               # a cut user label: at most 7 half-widths, "…" included (docs/proof.md)
TEXT_KINDS = ("number", "label")


def _overlap(a, b):
    return a[0] + EPS < b[2] and b[0] + EPS < a[2] and a[1] + EPS < b[3] and b[1] + EPS < a[3]


def layout_problems(manifest):
    """(a) inside the frame, numbers and labels clear of the title and caption bands;
    (b) no two numbers or labels overlap; (c) numbers at least 0.15 units tall;
    (d) numbers at most 10 characters; (e) captions in at most two lines, within the width."""
    if "frame" not in manifest or "layout" not in manifest:
        return ["no frame/layout in the manifest"]
    w, h = manifest["frame"]["width"], manifest["frame"]["height"]
    out = []
    for st in manifest["layout"]:
        n, items = st["step"], st["items"]
        bands = [it["box"] for it in items if it["kind"] in ("title", "caption")]
        texts = [it for it in items if it["kind"] in TEXT_KINDS]
        for it in items:
            x0, y0, x1, y1 = it["box"]
            name = f"step {n}: {it['kind']} {it['text'][:20]!r}"
            if x0 < -w / 2 - EPS or x1 > w / 2 + EPS or y0 < -h / 2 - EPS or y1 > h / 2 + EPS:
                out.append(f"{name} leaves the frame {it['box']}")
            if it["kind"] == "number":
                if y1 - y0 < MIN_NUMBER_HEIGHT - 1e-9:
                    out.append(f"{name} is {y1 - y0:.3f} units tall (< {MIN_NUMBER_HEIGHT})")
                if len(it["text"]) > MAX_NUMBER_CHARS:
                    out.append(f"{name} is longer than {MAX_NUMBER_CHARS} characters")
            if it["kind"] == "caption" and it["text"].count("\n") > 1:
                out.append(f"{name} takes more than two lines")
            if it["kind"] in TEXT_KINDS:
                for b in bands:
                    if y0 + EPS < b[3] and b[1] + EPS < y1:
                        out.append(f"{name} runs into the title or caption band")
        for i in range(len(texts)):
            for j in range(i + 1, len(texts)):
                if _overlap(texts[i]["box"], texts[j]["box"]):
                    out.append(f"step {n}: {texts[i]['text'][:16]!r} overlaps {texts[j]['text'][:16]!r}")
    return out


CELL_TOL = 0.02       # frame units: cells of one row share a centre line, within this


def _centre(b):
    return ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)


def _inside(inner, outer, tol=EPS):
    return (inner[0] >= outer[0] - tol and inner[2] <= outer[2] + tol
            and inner[1] >= outer[1] - tol and inner[3] <= outer[3] + tol)


INDICES = re.compile(r"\[(-?\d+)\]")


def _monotone_axis(entries, along):
    """The index component that names the rows (along="row") or columns: constant along each
    and strictly increasing with it; None when no component does. A table whose columns (or
    rows) are different quantities (shift_causal[i], shift_open[i]) is named by its labels'
    names instead: one name per column, each a different one."""
    keys = sorted({e[along] for e in entries})
    parts = [INDICES.findall(e["label"]) for e in entries]
    if parts and parts[0] and all(len(p) == len(parts[0]) for p in parts):
        for k in range(len(parts[0])):
            by = defaultdict(set)
            for e, p in zip(entries, parts):
                by[e[along]].add(int(p[k]))
            if all(len(v) == 1 for v in by.values()):
                seq = [next(iter(by[key])) for key in keys]
                if all(a < b for a, b in zip(seq, seq[1:])):
                    return k, {key: next(iter(by[key])) for key in keys}
    names = defaultdict(set)
    for e in entries:
        names[e[along]].add(e["label"].split("[", 1)[0])
    if all(len(v) == 1 for v in names.values()) and len({next(iter(v)) for v in names.values()}) == len(keys):
        return "name", {key: next(iter(names[key])) for key in keys}
    return None


def structure_problems(manifest, expected=None, names=None, marks=None, partial=False):
    """Grids: each entry inside its cell; cells on a lattice (x grows with the column, y falls with
    the row); the labels' indices follow rows and columns; each axis label on its row or column,
    outside the grid, and (names) the oracle's name for that index. Marks: each covers its cells'
    boxes and no other cell's centre of its grid; (marks) the oracle's cells of that kind, and
    masked/NaN marks only on −∞/NaN values.

    names: {grid name: {"row"|"col": {index: text}}}, marks: {kind: set of labels}; partial: the
    layout is a moment mid-derivation, where a grid filled cell by cell has rows and columns with no
    entry yet: their labels cannot be placed and are passed over (at a step's end every label must
    have its row or column)."""
    expected, names, marks = expected or {}, names or {}, marks or {}
    out = []
    for st in manifest["layout"]:
        n = st["step"]
        entries = defaultdict(list)
        axes = defaultdict(list)
        for it in st["items"]:
            if "grid" in it and "row" in it:
                entries[it["grid"]].append(it)
            elif "grid" in it and "axis" in it:
                axes[it["grid"]].append(it)
        index_of = {}
        for grid, cells in entries.items():
            for it in cells:
                if not _inside(it["box"], it["cell"]):
                    out.append(f"step {n}: {it['label']} {it['text']!r} lies outside its cell in {grid}")
            for along, coord in (("row", 1), ("col", 0)):
                lines = defaultdict(list)
                for it in cells:
                    lines[it[along]].append(_centre(it["cell"])[coord])
                keys = sorted(lines)
                centres = [sum(v) / len(v) for v in (lines[k] for k in keys)]
                if any(max(lines[k]) - min(lines[k]) > CELL_TOL for k in keys):
                    out.append(f"step {n}: the cells of a {along} of {grid} are not aligned")
                steps = [b - a for a, b in zip(centres, centres[1:])]
                if any(s >= 0 if along == "row" else s <= 0 for s in steps):
                    out.append(f"step {n}: the {along}s of {grid} are out of order on screen")
                axis = _monotone_axis(cells, along)
                if axis is None and len(keys) > 1:
                    out.append(f"step {n}: the labels of {grid} do not follow its {along}s")
                index_of[(grid, along)] = (axis[1] if axis else {}), dict(zip(keys, centres))
        for grid, labels in axes.items():
            cells = entries.get(grid, [])
            if not cells:
                continue
            left = min(it["cell"][0] for it in cells)
            top = max(it["cell"][3] for it in cells)
            base = grid.split("#")[0]
            for it in labels:
                along = it["axis"]
                maths, centres = index_of[(grid, along)]
                if it["index"] not in centres and partial:
                    continue
                if it["index"] not in centres:
                    out.append(f"step {n}: {along} label {it['text']!r} of {grid} has no {along} {it['index']}")
                    continue
                x, y = _centre(it["box"])
                if abs((y if along == "row" else x) - centres[it["index"]]) > CELL_TOL:
                    out.append(f"step {n}: {along} label {it['text']!r} is off {along} {it['index']} of {grid}")
                if (along == "row" and it["box"][2] > left + EPS) or (along == "col" and it["box"][1] < top - EPS):
                    out.append(f"step {n}: {along} label {it['text']!r} runs into {grid}")
                want = names.get(base, {}).get(along, {}).get(maths.get(it["index"]))
                cut = it["text"].endswith("…") and want is not None and want.startswith(it["text"][:-1])
                if want is not None and it["text"] != want and not cut:
                    out.append(f"step {n}: {along} {maths.get(it['index'])} of {grid} is labelled "
                               f"{it['text']!r}, the oracle names it {want!r}")
        out += _zoom_problems(n, st["items"])
        cell_of = {it["label"]: it for cells in entries.values() for it in cells}
        shown = {it["label"]: it for it in st["items"] if it["kind"] == "number"}
        for it in st["items"]:
            if it["kind"] != "mark":
                continue
            kind = it["mark"]
            for label in it["covers"]:
                target = cell_of.get(label) or shown.get(label)
                if target is None:
                    out.append(f"step {n}: a {kind} mark covers {label}, which is not on screen")
                    continue
                if not _inside(target.get("cell", target["box"]), it["box"]):
                    out.append(f"step {n}: the {kind} mark does not cover {label}")
                value = _value(expected, label)
                if kind == "masked" and value is not None and not (math.isinf(value) and value < 0):
                    out.append(f"step {n}: {label} is marked masked, the oracle says {value!r}")
                if kind == "nan" and value is not None and not math.isnan(value):
                    out.append(f"step {n}: {label} is marked NaN, the oracle says {value!r}")
                if kind in marks and label not in marks[kind]:
                    out.append(f"step {n}: {label} carries a {kind} mark the oracle does not give it")
            grids = {cell_of[lab]["grid"] for lab in it["covers"] if lab in cell_of}
            for other in (c for cells in (entries[g] for g in grids) for c in cells):
                if other["label"] not in it["covers"] and _inside((*_centre(other["cell"]),) * 2, it["box"], -EPS):
                    out.append(f"step {n}: the {kind} mark over {it['covers'][:2]} also covers {other['label']}")
    return out


ENTRY = re.compile(r"^(.*)\[(\d+)\]\[(\d+)\]$")


def _zoom_problems(n, items):
    """A zoomed copy (items marked `zoom_of`, kit/page/zoom.py) is entries of that grid, all from one
    of its rows or one of its columns, each drawn once."""
    copies = [it for it in items if "zoom_of" in it]
    found = [ENTRY.match(it["label"]) for it in copies]
    out = [f"step {n}: {it['label']} is marked a copy of {it['zoom_of']} but is not its entry"
           for it, m in zip(copies, found) if m is None or m[1] != it["zoom_of"]]
    cells = {(m[1], int(m[2]), int(m[3])) for m in found if m}
    if cells and len({(g, i) for g, i, _ in cells}) > 1 and len({(g, j) for g, _, j in cells}) > 1:
        out.append(f"step {n}: the zoomed copy is neither one row nor one column: {sorted(cells)[:4]}")
    labels = [it["label"] for it in items if it["kind"] == "number"]
    out += [f"step {n}: {it['label']} is drawn twice beside its zoomed copy" for it in copies
            if labels.count(it["label"]) > 1]
    return out


def coverage(records, expected):
    checked = sum(rec["label"] in expected for rec in records)
    return checked / len(records) if records else 1.0


def half_widths(text):
    """Set width in half-widths, as UAX #11 has it: East Asian Wide or Fullwidth counts two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def user_problems(manifest, inputs):
    """Each user text on screen is the user's own: a token of its option, or its start and "…"
    within CUT_WIDTH half-widths, with the whole token kept as the item's `full` (a whole token
    lists no `full`)."""
    out = []
    for st in manifest["layout"]:
        for it in st["items"]:
            for source, text in it.get("users", []):
                given = inputs.get(source) or []
                given = given.split() if isinstance(given, str) else [str(t) for t in given]
                whole = text in given
                cut = text.endswith("…") and any(t.startswith(text[:-1]) for t in given)
                if not (whole or cut):
                    out.append(f"step {st['step']}: {text!r} is drawn as user text but is not in --{source}")
                full = it.get("full")
                if cut and not whole and not (full in given and full.startswith(text[:-1])):
                    out.append(f"step {st['step']}: {text!r} is cut, but its full text {full!r} is not the token")
                if cut and not whole and half_widths(text) > CUT_WIDTH:
                    out.append(f"step {st['step']}: {text!r} is cut wider than {CUT_WIDTH} half-widths")
            if "full" in it and not it["text"].endswith("…"):
                out.append(f"step {st['step']}: {it['text']!r} is whole but lists full {it['full']!r}")
    return out


# -- colour: what each colour says (docs/proof.md, "In its colour"); written here, not read from style.py
PALETTE_ROLES = {"text", "muted", "query", "key", "value", "mask", "track", "accent", "grid", "nan", "background"}
MARK_ROLES = {"masked": "mask", "nan": "nan", "track": "track", "changed": "accent", "unchanged": "value",
              "padding": "muted"}


def _role_wanted(roles, it, step):
    """The role the oracle gives an item, or None where it says nothing: a grid entry by its label
    (or its grid's name), an axis label by its grid and axis (and index), any text by its text."""
    roles = roles or {}
    base = it.get("grid", "").split("#")[0]
    if "row" in it:
        want = roles.get("entries", {}).get(it["label"], roles.get("grids", {}).get(base))
        return want if want is not None else roles.get("entry_default")
    if "axis" in it:
        axis = roles.get("axes", {}).get((base, it["axis"]))
        if isinstance(axis, dict):
            axis = axis.get(it["index"], axis.get(None))
        if axis is not None:
            return axis
    return roles.get("step_texts", {}).get(step, {}).get(it["text"], roles.get("texts", {}).get(it["text"]))


def colour_problems(manifest, expected=None, marks=None, roles=None):
    """Each item's colour (its `role`, read back from the drawn mobject) says what the oracle says:
    every text and mark in a palette colour; each mark in its kind's colour; a −∞ cell filled in the
    mask colour and a NaN cell in its grey, and the mask colour on no other cell but the oracle's
    hidden ones; each grid entry, axis label and text the oracle names (roles: {"entries": {label:
    role}, "grids": {name: role}, "entry_default": role, "axes": {(grid, axis): role or {index: role}},
    "texts": {text: role}, "step_texts": {step: {text: role}}, "numbers": {label: role}, a number
    drawn in that role where it stands and in it or the text colour where it is copied}) in that role, and every other grid entry in the text colour unless a
    hidden mark covers it (a hidden zero takes its frame's colour)."""
    expected, marks, roles = expected or {}, marks or {}, roles or {}
    hidden = set(marks.get("hidden", ())) | set(marks.get("unchanged", ()))
    out = []
    for st in manifest["layout"]:
        n = st["step"]
        covered = {lab for it in st["items"] if it["kind"] == "mark" and it["mark"] in ("hidden", "unchanged")
                   for lab in it["covers"]}
        for it in st["items"]:
            name = f"step {n}: {it['kind']} {it['label'][:24]!r}"
            role = it.get("role")
            if role not in PALETTE_ROLES:
                out.append(f"{name} is drawn in {role!r}, not a colour of the palette")
                continue
            if it["kind"] == "mark":
                want = MARK_ROLES.get(it["mark"])
                if want and role != want:
                    out.append(f"{name} over {it['covers'][:2]} is drawn in {role}, a {it['mark']} mark is {want}")
                continue
            if "row" in it:
                value = _value(expected, it["label"])
                cell = it.get("cell_role")
                if value is not None and math.isinf(value) and value < 0 and cell != "mask":
                    out.append(f"{name} is −∞ but its cell is drawn in {cell}, not the mask colour")
                if value is not None and math.isnan(value) and cell != "nan":
                    out.append(f"{name} is NaN but its cell is drawn in {cell}, not the NaN grey")
                if cell == "mask" and not (value is not None and math.isinf(value) and value < 0) \
                        and it["label"] not in hidden:
                    out.append(f"{name} {it['text']!r}: its cell is drawn in the mask colour, but the oracle "
                               f"says {value!r}, not −∞, and gives it no hidden mark")
            want = _role_wanted(roles, it, n)
            if want is None and "row" in it and it["label"] not in covered:
                want = "text"
            if want is not None and role != want:
                out.append(f"{name} {it['text']!r} is drawn in {role}, the oracle says {want}")
        drawn = defaultdict(list)
        for it in st["items"]:
            if it["kind"] == "number" and it["label"] in roles.get("numbers", {}):
                drawn[it["label"]].append(it["role"])
        for label, got in drawn.items():       # one of its items in the role, any other a copy in text
            want = roles["numbers"][label]
            if want not in got or any(r not in (want, "text") for r in got):
                out.append(f"step {n}: number {label!r} is drawn in {sorted(set(got))}, the oracle says {want}")
    return out


def cell_problems(manifest):
    """Every cell seen: at each step's end, each grid on screen (its record: rows and columns) shows
    an entry in every cell, visible (the layout keeps only what is visible): a masked or hidden cell
    shows its −∞ or its 0 under a mark, it is never an empty cell."""
    out = []
    for st in manifest["layout"]:
        shown = defaultdict(set)
        for it in st["items"]:
            if "grid" in it and "row" in it:
                shown[it["grid"]].add((it["row"], it["col"]))
        for grid, shape in st.get("grids", {}).items():
            missing = [(i, j) for i in range(shape["rows"]) for j in range(shape["cols"])
                       if (i, j) not in shown[grid]]
            if missing:
                out.append(f"step {st['step']}: {grid} ({shape['rows']} x {shape['cols']}) shows no entry in "
                           f"{len(missing)} cell(s): " + ", ".join(f"row {i} col {j}" for i, j in missing[:4]))
    return out


# -- blocks: each drawn block (a grid with its name tag, shape tag and header) is what its clip declares
def declared_blocks(clip):
    """The clip's BLOCKS (scenes/clips/NAME/parts.py, else its scene module): {block: role, or
    (its name's role, its frames' role)}; a key ending in * covers every block it starts."""
    import importlib
    from scenes.pipeline.jobs.registry import scene
    module = scene(clip).__module__
    for name in (module.rsplit(".", 1)[0] + ".parts", module):
        try:
            found = getattr(importlib.import_module(name), "BLOCKS", None)
        except ImportError:
            continue
        if found is not None:
            return found
    return None


def _block_role(blocks, name):
    role = blocks.get(name)
    if role is None:
        role = next((r for k, r in blocks.items() if k.endswith("*") and name.startswith(k[:-1])), None)
    return (role, role) if isinstance(role, str) else role


def block_problems(manifest, blocks):
    """Every block on screen is declared (blocks: declared_blocks(clip)), and drawn as declared: its
    name tag, shape tag and header (the block's items that are neither entries nor axis labels) in
    its name's role, its entries' frames (cell_role) in its frames' role, except cells a mark covers
    (their colour is the mark's) and the tracked element's own cell."""
    if blocks is None:
        return []
    out = []
    for st in manifest["layout"]:
        n = st["step"]
        covered = {lab for it in st["items"] if it["kind"] == "mark" for lab in it["covers"]}
        for it in st["items"]:
            block = it.get("block")
            if block is None or it["kind"] == "mark" or "axis" in it:
                continue
            role = _block_role(blocks, block)
            if role is None:
                out.append(f"step {n}: block {block!r} is drawn, but its clip declares no role for it")
                continue
            named, frames = role
            if "row" in it:
                if it["label"] not in covered and it.get("role") != "track" and it.get("cell_role") != frames:
                    out.append(f"step {n}: {it['label']}'s frame in block {block!r} is drawn in "
                               f"{it.get('cell_role')}, the block is declared {frames}")
            elif it.get("role") != named:
                out.append(f"step {n}: {it['text'][:16]!r} of block {block!r} is drawn in {it.get('role')}, "
                           f"the block is declared {named}")
    return out
