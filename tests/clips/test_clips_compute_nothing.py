"""Scenes do no arithmetic on the data (STYLE.md, "Compute is separate from drawing"): a clip reads
fields of its compute result, each tested there against an oracle. Read from the clips' source:
outside a clip's input `rules`, no clip module imports numpy or math, or calls an array's reductions
(which entry is largest, whether any row is NaN: facts the compute module states and tests)."""
import ast

import pytest

from conftest import ROOT

CLIPS = sorted((ROOT / "scenes" / "clips").glob("*.py"))
MODULES = ("numpy", "math")
REDUCTIONS = {"any", "all", "max", "min", "sum", "mean", "prod", "argmax", "argmin", "ptp", "nonzero",
              "cumsum", "std", "var", "flatnonzero", "isnan", "isinf", "isfinite", "where", "abs"}


def arithmetic(source, name="clip"):
    """Where `source` computes on data: its imports of numpy or math, and its calls of array
    reductions, outside a function named `rules` (the input checks)."""
    tree = ast.parse(source)
    skipped = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "rules"
               for n in ast.walk(f)}
    out = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            out += [f"{name}:{node.lineno} imports {a.name}" for a in node.names
                    if a.name.split(".")[0] in MODULES]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in MODULES:
            out.append(f"{name}:{node.lineno} imports from {node.module}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in REDUCTIONS):
            out.append(f"{name}:{node.lineno} calls .{node.func.attr}()")
    return out


@pytest.mark.parametrize("path", CLIPS, ids=[p.stem for p in CLIPS])
def test_a_clip_reads_facts_and_computes_none(path):
    assert arithmetic(path.read_text("utf-8"), path.stem) == []


def test_the_check_names_a_scene_that_computes():
    """Planted: the largest weight picked in the scene, a NaN row found there, numpy imported;
    the same lines inside the input rules pass."""
    scene = ("import numpy as np\n"
             "class Clip:\n"
             "    def softmax_weights(self):\n"
             "        top = int(np.argmax(self.result.weights))\n"
             "        lost = self.result.weights[1].any()\n")
    found = sorted(arithmetic(scene))
    assert found == ["clip:1 imports numpy", "clip:4 calls .argmax()", "clip:5 calls .any()"]
    assert arithmetic("def rules(raw):\n    if abs(raw['w'].sum() - 1) > 1e-6:\n        raise ValueError\n") == []
