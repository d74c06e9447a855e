"""Checks of the derivations a clip shows (scenes/kit/motion/derive.py), read from its manifest and from
the layouts taken at each derivation's widest moment (derive.watch()).

    built, moments = watched(clip, inputs)        # build with the moments recorded
    derivation_problems(manifest, deps)           # each expression shows the sources the oracle gives
    moment_problems(manifest, moments, expected, deps=deps)   # the contract mid-motion
    built, moments, problems = derived(clip, inputs, oracle(inputs), deps)   # both, and the frames
    made(built)                                   # label -> its derivation record

deps(label) is the clip test's own oracle of what a label is computed from (index rules written
in the test, never scenes.compute).
"""
import os

from conftest import build
from support.contract import layout_problems, oracle_problems, precision_problems, structure_problems
from scenes.kit.motion import derive

# Generated inputs per clip whose derivations are checked mid-motion in the suite (DERIVE_CASES=8
# or more for a wider sample; tests/support/sweep.py checks the contract at each step's end on 300).
SEEDS = range(int(os.environ.get("DERIVE_CASES", "4")))


def cases(presets):
    """The mid-motion cases of a clip: its presets, then SEEDS generated inputs."""
    return [("preset", p) for p in presets] + [("seed", s) for s in SEEDS]


def case_inputs(clip, kind, case, preset_lang="zh", base=100):
    """(inputs, lang) of one case: a preset in `preset_lang` ("default": the clip's defaults), a
    generated input (seed base + n) in English every other one."""
    from conftest import inputs_for
    from support.cases import generated
    if kind == "preset":
        return inputs_for(clip, None if case == "default" else case), preset_lang
    return generated(clip, base + case)[1], "en" if case % 2 else "zh"


def watched(clip, inputs, lang="zh", shared=False):
    """(built, the moments of its derivations); shared: from the session's shared builds
    (tests/support/shared_builds.py: for a test that changes nothing)."""
    if shared:
        from support.shared_builds import shared_build
        stored = shared_build(clip, inputs, lang)
        return stored, stored.moments
    with derive.watch() as moments:
        built = build(clip, inputs, lang=lang)
    return built, list(moments)


def derivations(manifest):
    return [r for r in manifest["numbers"] if "derivation" in r]


def made(built):
    """label -> its derivation record, for every number the build makes on screen by an expression,
    a slide or a flow (swept entries: swept())."""
    return {r["label"]: r["derivation"] for r in derivations(built.manifest())
            if r["derivation"].get("motion") != "sweep"}


def swept(manifest):
    """label -> the record of each entry filled in a sweep (kit/motion/sweep.py)."""
    return {r["label"]: r for r in derivations(manifest) if r["derivation"].get("motion") == "sweep"}


def flight_problems(manifest):
    """Every copy that flies into an expression leaves from the number its term names (a copy from
    a row's name, a text, is the name's own); every carried item's flight left from an item with
    its own label (the layout record's `flown_from`)."""
    out = []
    for rec in derivations(manifest):
        for f in rec["derivation"].get("flights", ()):
            if f["kind"] == "number" and f["from"] != f["term"]:
                out.append(f"{rec['label']}: its copy of {f['term']} flies from {f['from']} {f['box']}")
    for st in manifest["layout"]:
        for it in st["items"]:
            start = it.get("flown_from")
            if start is not None and start["label"] != it["label"]:
                out.append(f"step {st['step']}: {it['label']} landed from {start['label']} {start['box']}")
    return out


def sweep_problems(manifest):
    """Each swept entry lit exactly its sources (the manifest's `from`, compute's provenance, which the
    clips' tests check against torch's Jacobian) that were on screen at its step's end, and said
    `shorter` exactly when some were not; every entry of a grid of at most 16 cells swept whole
    ("all"), a larger grid's first row ("first row")."""
    out, end = [], {st["step"]: st["items"] for st in manifest["layout"]}
    for label, rec in swept(manifest).items():
        d, want = rec["derivation"], rec.get("from")
        if want is None:
            out.append(f"{label}: swept without provenance")
            continue
        shown = {it["label"] for it in end.get(d["step"], []) if it["kind"] == "number"}
        if set(d["from"]) != set(d["shows"]):
            out.append(f"{label}: its sweep lights {d['shows']} but records {d['from']}")
        if not set(d["from"]) <= set(want):
            out.append(f"{label}: its sweep lights {sorted(set(d['from']) - set(want))}, not its sources")
        if set(want) & shown - set(d["from"]):
            out.append(f"{label}: its sweep leaves {sorted(set(want) & shown - set(d['from']))} dark")
        if d["shorter"] != (not set(want) <= set(d["from"])):
            out.append(f"{label}: its sweep says shorter={d['shorter']}")
    return out


def derived(clip, inputs, expected, deps, lang="zh", shared=False, names=None, marks=None):
    """(built, moments, problems): the build with its moments (watched), and every problem of its
    derivations (sources, the contract mid-motion) and of its last frames against `expected`
    (the clip test's oracle); names and marks as the contract's structure check takes them."""
    built, moments = watched(clip, inputs, lang, shared)
    m = built.manifest()
    problems = derivation_problems(m, deps) + moment_problems(m, moments, expected, names, marks, deps)
    return built, moments, problems + layout_problems(m) + oracle_problems(m["numbers"], expected)


def derivation_problems(manifest, deps):
    """Each derivation shows only numbers its result is made from, and all of them unless it says
    it left some out; a slide copies its one source, a drop (−∞) has none."""
    out = []
    for rec in derivations(manifest):
        d = rec["derivation"]
        if "skipped" in d:
            continue
        want, shows = set(deps(rec["label"])), set(d["shows"])
        if not shows <= want:
            out.append(f"{rec['label']}: its {d['op']} shows {sorted(shows - want)}, "
                       "which it is not made from")
        if not d.get("shorter") and shows != want:
            out.append(f"{rec['label']}: its {d['op']} leaves out {sorted(want - shows)}")
        if rec.get("from") is not None and set(rec["from"]) != want:
            out.append(f"{rec['label']}: the manifest says it comes from {rec['from']}, "
                       f"the oracle {sorted(want)}")
    return out


def moment_problems(manifest, moments, expected, names=None, marks=None, deps=None):
    """At each derivation's widest moment: the legibility contract, the places and marks, the
    precision of the expression's numbers (a grid's, whole at its step's end, is checked there);
    the lit cells are the result's sources and the target frame is on its cell."""
    at = {"frame": manifest["frame"], "layout": moments, "numbers": manifest["numbers"]}
    out = [f"mid-motion ({m['label']}): {p}" for m in moments for p in layout_problems({**at, "layout": [m]})]
    out += [f"mid-motion: {p}" for p in structure_problems(at, expected, names, marks, partial=True)]
    end = {st["step"]: st["items"] for st in manifest["layout"]}
    for m in moments:      # an expression's own numbers, beside the grids its step ends with (whole)
        own = [it for it in m["items"]
               if it["kind"] == "number" and "grid" not in it and it["label"] != m["label"]]
        step = {"step": m["step"], "items": own + end.get(m["step"], [])}
        out += [f"mid-motion: {p}" for p in precision_problems({**at, "layout": [step]}, expected)]
    for m in moments:
        lit = {c for it in m["items"] if it.get("mark") == "source" for c in it["covers"]}
        aim = [it["covers"] for it in m["items"] if it["kind"] == "mark" and it["mark"] == "target"]
        if deps is not None and not lit <= set(deps(m["label"])):
            out.append(f"mid-motion: {m['label']} lights {sorted(lit - set(deps(m['label'])))}, "
                       "not its sources")
        if aim != [[m["label"]]]:
            out.append(f"mid-motion: {m['label']}: the target frame covers {aim}")
    return out


def flow_problems(manifest, moments, deps):
    """Shapes that flow (scenes/kit/motion/flow.py), at each flow's moment (every copy landed, the
    line not shown yet): the legibility contract; each size made this way shows exactly the sources
    the test's own rule gives (`deps`), as its `from` does."""
    at = {"frame": manifest["frame"], "numbers": manifest["numbers"]}
    out = [f"mid-flow ({m['label']}): {p}" for m in moments if "flow" in m
           for p in layout_problems({**at, "layout": [m]})]
    made = {r["label"] for r in derivations(manifest) if r["derivation"].get("motion") == "flow"}
    out += [f"{label}: made by a flow, never seen landing" for label in made
            - {lab for m in moments for lab in m.get("flow", ())}]
    return out + derivation_problems(manifest, deps)


def size_sources(lines, base, scalars=()):
    """label -> the sizes a line's shape depends on, by torch: `lines` maps a shape's name to (the
    labels of the sizes its line is run on, the line run by torch on tensors of those sizes); each
    size is changed alone (+1, −1, ×2, ×3; a run torch refuses is left out) and the line run again:
    the sizes that change a label are its sources. `scalars`: names whose line gives one number."""
    out = {}
    for name, (args, line) in lines.items():
        ref = tuple(line(*[base[a] for a in args]))
        labels = [name] if name in scalars else [f"{name}[{k}]" for k in range(len(ref))]
        deps = {label: set() for label in labels}
        for m, a in enumerate(args):
            for v in {base[a] + 1, base[a] - 1, 2 * base[a], 3 * base[a]} - {0}:
                try:
                    got = tuple(line(*[v if n == m else base[x] for n, x in enumerate(args)]))
                except RuntimeError:
                    continue
                deps.update({lab: deps[lab] | {a} for lab, old, new in zip(labels, ref, got) if old != new})
        out.update(deps)
    return out
