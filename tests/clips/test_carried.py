"""What stays on the board is carried: at every step, of the labels on screen at both its end and
the previous step's end, at least CARRIED are carried (the same item kept, or moved there by the
step's matched transition: kit/motion/carry.py; the layout record's `carried`), for every clip's
default and presets; at most one step of a clip is a cut. Planted: a step that fades its board out
first and draws the grids it keeps again."""
import pytest

from conftest import build
from support.dry_runs import dry_manifest
from pipeline.test_continuity import clear_first, cut_problems
from support.cases import PRESETS

CARRIED = 0.8


def carried_problems(manifest, least=CARRIED):
    """Steps where fewer than `least` of the labels on screen at both ends are carried (a label
    is carried when an item showing it is)."""
    out, layout = [], manifest["layout"]
    for before, now in zip(layout, layout[1:]):
        kept = {it["label"] for it in before["items"] if it["kind"] in ("number", "label")}
        both = {it["label"] for it in now["items"] if it["kind"] in ("number", "label")} & kept
        carried = {it["label"] for it in now["items"] if it.get("carried")} & both
        if both and len(carried) < least * len(both):
            out.append(f"step {now['step']}: {len(carried)} of {len(both)} kept labels carried "
                       f"(redrawn: {sorted(both - carried)[:6]})")
    return out


# Not carried yet, each for its reason (strict: a case that starts to pass must leave this list).
SHORT: dict[str, str] = {}


def case(clip, preset):
    reason = SHORT.get(clip)
    return pytest.param(clip, preset, id=f"{clip}:{preset or 'default'}",
                        marks=[pytest.mark.xfail(reason=reason, strict=True)] if reason else [])


@pytest.mark.parametrize("clip,preset", [case(c, p) for c, p in PRESETS])
def test_what_stays_on_the_board_is_carried(clip, preset):
    manifest = dry_manifest(clip, preset)       # the runner's (shared with test_explain)
    assert carried_problems(manifest) == []
    assert cut_problems(manifest) == []


def test_a_kept_grid_faded_and_redrawn_is_caught(monkeypatch):
    """A step fades its board out first, then draws the grids it keeps again."""
    monkeypatch.setattr("scenes.kit.scene.base.ClipScene.clear_stage", clear_first)
    problems = carried_problems(build("weighted-average").manifest())
    assert any(p.startswith("step 2:") for p in problems), problems
