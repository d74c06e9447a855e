"""Every record says what it is (SPEC.md's manifest fields): `given` (the input option it shows),
`const` (with the words that say why: an index, a shape, a section, a constant of the lesson) or
`op` and `from` (computed), for every number of every clip's default and every preset (and of a
sample of generated legal inputs); a `given`
names an option of the manifest's inputs and holds one of its entries, and a record that is an
input's own entry (q[1][0] = the q given) is never recorded as a constant or left unsaid.

The oracle is the manifest's own `inputs` read here, not scenes/compute/provenance.py's rules.
Planted: every input of causal-mask recorded as `const` ("an index") is named.
"""
import json
import math
import re

import pytest

from conftest import ROOT, build, cli
from support.cases import generated
from support.dry_runs import dry_manifest
from scenes.compute import provenance
from scenes.pipeline.jobs.inputs import manifest_inputs
from scenes.pipeline.jobs.registry import specs

PRESETS = {p.stem: json.loads(p.read_text("utf-8"))["clip"] for p in sorted((ROOT / "assets/presets").glob("*.json"))}
CASES = [(clip, None) for clip in specs()] + [(clip, name) for name, clip in PRESETS.items()]
OWN = re.compile(r"^([a-z_]+)((?:\[\d+\])*)$")          # an input's own label: q[1][0], delta


def entries(value):
    """Every entry of an input: the numbers of a matrix or list, a mask's bits, a number itself."""
    if isinstance(value, (list, tuple)):
        return [e for v in value for e in entries(v)]
    if isinstance(value, str) and len(value) > 1 and set(value) <= set("01"):
        return [int(b) for b in value]
    return [value]


def equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    try:
        x, y = float(a), float(b)
    except (TypeError, ValueError):
        return a == b
    return math.isclose(x, y, rel_tol=1e-12, abs_tol=1e-15) or (math.isnan(x) and math.isnan(y))


def own_entry(label, inputs):
    """(option, its entry) where the label is the option's own name and indices, else None."""
    found = OWN.match(label)
    if not found or found.group(1) not in inputs:
        return None
    value = inputs[found.group(1)]
    try:
        for k in map(int, re.findall(r"\[(\d+)\]", found.group(2))):
            value = value[k]
    except (TypeError, IndexError, KeyError):
        return None
    return found.group(1), value


def kind_problems(m):
    """One line per record that does not say what it is, or says it wrongly."""
    out, inputs = [], m["inputs"]
    for rec in m["numbers"]:
        label, value = rec["label"], rec["value"]
        said = [k for k in ("given", "const") if k in rec] + (["op"] if "op" in rec and "from" in rec else [])
        if len(said) != 1:
            out.append(f"{label} = {rec['text']}: says {said or 'nothing'} (one of given, const, op+from)")
            continue
        if "given" in rec:
            option = rec["given"]
            if option not in inputs:
                out.append(f"{label}: given {option!r}, which is not an input ({sorted(inputs)})")
            elif not any(equal(value, e) for e in entries(inputs[option])):
                out.append(f"{label} = {value!r}: given {option!r}, which holds no such entry")
        elif "const" in rec and not str(rec["const"]).strip():
            out.append(f"{label}: const without the words that say why")
        own = own_entry(label, inputs)
        if own and equal(value, own[1]) and "op" not in rec and rec.get("given") != own[0]:
            out.append(f"{label} = {rec['text']}: the input {own[0]}'s entry recorded as "
                       f"{ {k: rec[k] for k in ('given', 'const') if k in rec} or 'nothing'}")
    return out


@pytest.mark.parametrize("clip,preset", CASES, ids=[f"{c}-{p or 'default'}" for c, p in CASES])
def test_every_record_says_what_it_is(clip, preset):
    m = dry_manifest(clip, preset)
    problems = kind_problems(m)
    assert problems == [], "\n".join(problems[:30])
    kinds = {k for rec in m["numbers"] for k in ("given", "const", "op") if k in rec}
    assert "const" in kinds and "op" in kinds, kinds        # every clip draws a section id and computes


@pytest.mark.sampled(3)
@pytest.mark.parametrize("clip,seed", [(c, k) for k in range(2) for c in specs()])
def test_every_record_of_a_generated_input_says_what_it_is(clip, seed):
    """The clips' own generators' legal inputs (tests/support/cases.py), built without frames and
    written as the runner writes the manifest (with its inputs)."""
    raw, inputs = generated(clip, seed)
    built = build(clip, inputs)
    m = built.book.manifest(clip, json.loads(json.dumps(manifest_inputs(inputs))))
    problems = kind_problems(m)
    assert problems == [], f"{raw}\n" + "\n".join(problems[:30])


def test_the_inputs_each_clip_draws_are_given():
    """Each clip's default draws its inputs as inputs: at least one record given for each clip whose
    inputs it draws by their own labels (the oracle: own_entry)."""
    for clip in specs():
        m = dry_manifest(clip)
        own = [r for r in m["numbers"] if own_entry(r["label"], m["inputs"]) and "op" not in r]
        assert own and all("given" in r for r in own), (clip, [r["label"] for r in own if "given" not in r])


def test_an_input_recorded_as_const_is_named(tmp_path, monkeypatch):
    """Planted: where records are made (the book's manifest asks provenance.kind), every input
    recorded as a constant ("an index") instead of `given`."""
    real = provenance.kind

    def planted(*args, **kwargs):
        said = real(*args, **kwargs)
        return {"const": provenance.INDEX} if "given" in said else said
    monkeypatch.setattr(provenance, "kind", planted)
    code, out = cli("causal-mask", "--dry-run", "--out", tmp_path)
    assert code == 0, out
    m = json.loads((tmp_path / "causal-mask.numbers.json").read_text("utf-8"))
    problems = kind_problems(m)
    named = {p.split(" ")[0] for p in problems}
    assert {"q[1][0]", "k[0][0]", "v[2][1]", "delta"} <= named, problems
    assert all("recorded as {'const': 'index'}" in p for p in problems), problems
