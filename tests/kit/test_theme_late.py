"""No module reads a theme's colour at import: a theme put in force after every module is imported
(`style.use("light")` in this process, as a long-lived process such as a test worker or the lab's
may do) draws every clip in that theme's colours.

The clips whose modules once kept a colour from import time (score-grid's ROLES, exercises'
HEAD_COLORS and the header colour of kit/compose/sheets.grid, dropout's num()) are built dry here,
in this process, after `style.use("light")`, their modules imported before in the dark theme: no item
of their layout records is drawn in a colour only the dark theme has (the layout record names a
colour off the light palette by its hex, kit/text/layout.role_of; the dark text is the light theme's
NaN fill, so a word in "nan" is the dark text left behind). A static scan of scenes/ finds no colour
read at module level, in a class body or as a default argument (kit/page/zoom.link's frame among them).

Planted by hand (each checked to fail, then restored): score_grid/scene.py's
`ROLES = {"Q": style.QUERY, "K": style.KEY, "V": style.VALUE}` (read at import): the score-grid build
names 94 items, the first `step 1 wq[0][0] cell_role #4FC3F7 (the dark query)`, and the scan names
scene.py:29; dropout/parts.py's `num(..., color: str = style.TEXT)`: 25 items, the first
`step 1 weights[0] in the dark text (the light NaN fill)`, and the scan names the default of num.
Planted here: sheets.grid's header colour as its import-time default kept it (the dark muted,
#90A4AE): named.
"""
import ast
import importlib
from pathlib import Path

import numpy as np
import pytest

from conftest import ROOT, build
from scenes.kit.text import style

COLOUR_NAMES = {"BACKGROUND", "TEXT", "MUTED", "QUERY", "KEY", "VALUE", "MASK", "TRACK", "ACCENT", "GRID_LINE",
                "NAN_FILL", "HEAT_LOW", "HEAT_HIGH", "THEME"}
MODULES = ["scenes.clips.score_grid.scene", "scenes.clips.exercises.answers", "scenes.clips.dropout.parts",
           "scenes.kit.page.zoom", "scenes.kit.compose.sheets"]
CLIPS = ["score-grid", "exercises", "dropout"]


def hex_rgb(colour):
    return np.array([int(colour[k:k + 2], 16) for k in (1, 3, 5)], float)


def dark_colours(manifest):
    """Every layout item of a light build drawn in a colour only the dark theme has."""
    light = [hex_rgb(c) for c in style.THEMES["light"].values()]
    dark = {name: hex_rgb(c) for name, c in style.THEMES["dark"].items()
            if min(np.linalg.norm(hex_rgb(c) - x) for x in light) > 3}
    found = []
    for st in manifest["layout"]:
        for it in st["items"]:
            for key in ("role", "cell_role"):
                role = it.get(key)
                if isinstance(role, str) and role.startswith("#"):
                    near = [n for n, c in dark.items() if np.linalg.norm(hex_rgb(role) - c) <= 3]
                    if near:
                        found.append(f"step {st['step']} {it['label']} {key} {role} (the dark {near[0]})")
                elif key == "role" and role == "nan" and it["kind"] != "mark":
                    found.append(f"step {st['step']} {it['label']} in the dark text (the light NaN fill)")
    return found


@pytest.fixture(scope="module")
def late_light():
    """Builds in the light theme put in force after the modules were imported in the dark one."""
    assert style.THEME == "dark"
    for name in MODULES:
        importlib.import_module(name)
    made = {}

    def go(clip):
        if clip not in made:
            style.use("light")
            try:
                made[clip] = build(clip).manifest()
            finally:
                style.use("dark")
        return made[clip]
    return go


@pytest.mark.parametrize("clip", CLIPS)
def test_a_theme_put_in_force_after_import_draws_the_whole_clip(late_light, clip):
    manifest = late_light(clip)
    assert dark_colours(manifest) == []
    assert any(it.get("role") == "text" for st in manifest["layout"] for it in st["items"])


def test_a_colour_kept_from_import_is_caught(monkeypatch):
    """Planted: sheets.grid's header colour as the import-time default kept it (the dark muted)."""
    from scenes.kit.compose import sheets
    monkeypatch.setattr(sheets.grid, "__defaults__", (None, style.THEMES["dark"]["muted"]))
    style.use("light")
    try:
        found = dark_colours(build("exercises").manifest())
    finally:
        style.use("dark")
    assert found and all("#90A4AE (the dark muted)" in f for f in found), found


def import_time_reads(source):
    """(line, where) of each palette colour read when the module is imported: at module level, in
    a class body, in a default argument or a decorator; from-imports of a colour name."""
    found = []

    def reads(node):                    # a lambda's body is read when it is called
        if isinstance(node, ast.Lambda):
            return []
        here = [node.lineno] if (isinstance(node, ast.Attribute) and node.attr in COLOUR_NAMES
                                 and isinstance(node.value, ast.Name)) else []
        return here + [line for child in ast.iter_child_nodes(node) for line in reads(child)]

    def body(statements, where):
        for st in statements:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in st.args.defaults + [d for d in st.args.kw_defaults if d] + st.decorator_list:
                    found.extend((line, f"a default of {st.name}") for line in reads(node))
            elif isinstance(st, ast.ClassDef):
                body(st.body, f"class {st.name}")
            elif isinstance(st, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                found.extend((line, where) for line in reads(getattr(st, "test", None) or ast.Pass()))
                body(st.body + getattr(st, "orelse", []) + getattr(st, "finalbody", [])
                     + [s for h in getattr(st, "handlers", []) for s in h.body], where)
            else:
                found.extend((line, where) for line in reads(st))
    tree = ast.parse(source)
    body(tree.body, "the module")
    found += [(st.lineno, f"from-import of {a.name}") for st in ast.walk(tree)
              if isinstance(st, ast.ImportFrom) and (st.module or "").endswith("style")
              for a in st.names if a.name in COLOUR_NAMES]
    return found


def test_no_module_reads_a_colour_at_import():
    found = [f"{path.relative_to(ROOT)}:{line}: {where}"
             for path in sorted((ROOT / "scenes").rglob("*.py")) if path != ROOT / "scenes/kit/text/style.py"
             for line, where in import_time_reads(path.read_text("utf-8"))]
    assert found == []


def test_the_scan_finds_a_colour_kept_at_import():
    planted = ("from scenes.kit.text import style\nfrom scenes.kit.text.style import TRACK\n"
               "ROLES = {'Q': style.QUERY}\nclass A:\n    c = style.KEY\n"
               "def f(color=style.TEXT):\n    return style.MUTED\nG = lambda: style.ACCENT\n")
    assert [line for line, _ in import_time_reads(planted)] == [3, 5, 6, 2]
    assert import_time_reads("from scenes.kit.text import style\ndef f(color=None):\n"
                             "    return color or style.TEXT\n") == []


def test_the_modules_read_here_exist():
    for name in MODULES:
        assert (ROOT / Path(*name.split("."))).with_suffix(".py").is_file(), name
