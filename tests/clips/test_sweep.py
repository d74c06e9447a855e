"""Every entry of a small grid seen being made: after the first entry's derivation the rest of the
grid lands in a sweep (scenes/kit/motion/sweep.py), each entry with its sources lit, and its record
says which (tests/support/derivations.sweep_problems: lit = recorded = compute's provenance, which
each clip's derivation test checks against torch's Jacobian, where on screen). Planted: a swept
entry lighting the wrong source, and a grid whose rest appears at once."""
import pytest

from conftest import build
from support.derivations import derivations, sweep_problems, swept

CLIPS = ("weighted-average", "score-grid", "causal-mask", "exercises")   # the clips whose grids are made


def made_grids(manifest, most=16):
    """Grids of at most `most` cells one of whose entries is made on screen (a derivation) in the
    step the grid first shows: every other entry must be made there too, derived or swept.
    grid -> (cells, labels not made)."""
    made = {r["label"]: r["derivation"]["step"] for r in derivations(manifest)}
    grids, first = {}, {}
    for st in manifest["layout"]:
        for it in st["items"]:
            if it["kind"] == "number" and "grid" in it:
                first.setdefault(it["grid"], st["step"])
                grids.setdefault(it["grid"], set()).add((it["row"], it["col"], it["label"]))
    out = {}
    for grid, cells in grids.items():
        labels = {lab for _, _, lab in cells}
        here = {lab for lab in labels if made.get(lab) == first[grid]}
        n = (max(r for r, _, _ in cells) + 1) * (max(c for _, c, _ in cells) + 1)
        if n <= most and here:
            out[grid] = (n, sorted(labels - here))
    return out


@pytest.mark.parametrize("clip", CLIPS)
def test_every_entry_of_a_made_small_grid_is_made_with_its_sources_lit(clip):
    m = build(clip).manifest()
    assert swept(m), f"{clip}: nothing swept"
    assert sweep_problems(m) == []
    assert {g: left for g, (_, left) in made_grids(m).items() if left} == {}


def test_a_swept_entry_lighting_the_wrong_source_is_caught(monkeypatch):
    from scenes.kit.motion import sweep
    right = sweep.sources_lit

    def wrong(scene, label, shown):
        lit, frames, short = right(scene, label, shown)
        others = sorted(set(shown) - set(lit) - {label})
        return ([others[0]] + lit[1:] if lit and others else lit), frames, short
    monkeypatch.setattr(sweep, "sources_lit", wrong)
    problems = sweep_problems(build("weighted-average").manifest())
    assert any("not its sources" in p for p in problems), problems


def test_a_grid_whose_rest_appears_at_once_is_caught(monkeypatch):
    from scenes.kit.draw.anim import Appear
    from scenes.kit.motion import made
    monkeypatch.setattr(made, "sweep", lambda scene, rest, *also, run_time=0.6:
                        scene.play(Appear(rest), *also, run_time=run_time))
    grids = made_grids(build("weighted-average").manifest())
    assert any(left for _, left in grids.values()), grids
