"""Layers only import downwards (compute <- kit <- clips <- pipeline <- render.py), and no two
project modules import each other, even inside a function: a cycle is a design bug."""
import ast

from conftest import ROOT

LAYERS = ["scenes.compute", "scenes.kit", "scenes.clips", "scenes.pipeline", "render"]


def modules():
    found = {}
    for path in sorted((ROOT / "scenes").rglob("*.py")) + [ROOT / "render.py"]:
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def imports(path, known):
    """The project modules a file imports, at the top or inside any function."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        out.update(n for n in names if n in known)
    return out


def layer(name):
    return next(k for k, prefix in enumerate(LAYERS) if name == prefix or name.startswith(prefix + "."))


def cycles(graph):
    """Every cycle, each once (as the list of its modules from the smallest)."""
    found = set()

    def walk(node, path):
        for nxt in graph[node]:
            if nxt in path:
                loop = path[path.index(nxt):]
                k = loop.index(min(loop))
                found.add(tuple(loop[k:] + loop[:k]))
            else:
                walk(nxt, path + [nxt])
    for start in graph:
        walk(start, [start])
    return found


def test_no_import_cycle():
    known = modules()
    graph = {m: imports(p, known) - {m} for m, p in known.items()}
    assert cycles(graph) == set()
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == {("a", "b", "c")}     # the check can fail


def test_no_layer_imports_one_above_it():
    """compute, the kit and the clips import nothing above them (Clip, Option and the input
    parsing are the kit's)."""
    known = modules()
    upward = [(m, d) for m, p in known.items() for d in imports(p, known)
              if layer(m) <= LAYERS.index("scenes.clips") and layer(d) > layer(m)]
    assert upward == []
