"""Layers only import downwards (compute <- kit <- clips <- pipeline <- render.py, and inside the
kit and the pipeline their sub-packages in the order each package's __init__ gives), no clip
imports another, and no two project modules import each other, even inside a function: a cycle
is a design bug."""
import ast

from conftest import ROOT

LAYERS = ["scenes.compute",
          "scenes.kit.text", "scenes.kit.draw", "scenes.kit.page", "scenes.kit.motion", "scenes.kit.compose",
          "scenes.kit.scene",
          "scenes.clips",
          "scenes.pipeline.jobs", "scenes.pipeline.video", "scenes.pipeline.present", "scenes.pipeline.run",
          "scenes.pipeline.lab",
          "render"]
PACKAGES = {"scenes", "scenes.kit", "scenes.pipeline"}     # docstrings only: no layer of their own


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


def upward(graph):
    """Every import of a module from a layer above its own."""
    return sorted((m, d) for m, deps in graph.items() for d in deps if layer(d) > layer(m))


def clip_of(name):
    """scenes.clips.causal_mask.five -> causal_mask (a clip module or package)."""
    return name.split(".")[2] if name.startswith("scenes.clips.") else None


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


def graph():
    known = modules()
    return {m: imports(p, known) - {m} for m, p in known.items() if m not in PACKAGES}


def test_every_module_is_in_a_layer():
    for name in graph():
        layer(name)


def test_no_layer_imports_one_above_it():
    """Upwards nowhere: compute, each kit package, the clips, each pipeline package, render.py."""
    assert upward(graph()) == []
    planted = {"scenes.kit.text.style": {"scenes.kit.page.page"}, "scenes.kit.page.page": {"scenes.kit.text.style"}}
    assert upward(planted) == [("scenes.kit.text.style", "scenes.kit.page.page")]   # the check can fail


def test_no_clip_imports_another():
    crossing = [(m, d) for m, deps in graph().items() for d in deps
                if clip_of(m) and clip_of(d) and clip_of(d) != clip_of(m)]
    assert crossing == []


def crowded(root):
    """Folders of more than 12 modules (an __init__ aside): the layout asks for a sub-package."""
    folders = {p.parent for p in root.rglob("*.py") if "__pycache__" not in p.parts}
    return sorted(str(f.relative_to(root)) for f in folders
                  if sum(1 for p in f.glob("*.py") if p.name != "__init__.py") > 12)


def test_no_folder_holds_more_than_twelve_modules(tmp_path):
    assert crowded(ROOT / "scenes") == []
    for n in range(13):                                        # planted: a thirteenth module
        (tmp_path / "lab").mkdir(exist_ok=True)
        (tmp_path / "lab" / f"m{n}.py").write_text("")
    assert crowded(tmp_path) == ["lab"]
