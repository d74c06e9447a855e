"""Every preset (the book's examples and its "试一试" cases) builds, and shows PyTorch's numbers."""
import pytest

import test_causal_mask
import test_dropout
import test_multihead
import test_score_grid
import test_weighted_average
from conftest import build, cli, inputs_for, manifest
from scenes.inputs import preset_names

ORACLES = {
    "weighted-average": lambda built, i: test_weighted_average.check_against_torch(built, i["x"], i["query"]),
    "score-grid": test_score_grid.check_against_torch,
    "causal-mask": test_causal_mask.check_against_torch,
    "dropout": test_dropout.check_against_torch,
    "multihead": lambda built, i: test_multihead.check_manifest(
        built, *i["shape"], i["heads"], i["track"], i["wrong_merge"]),
}
PRESETS = [(name, data["clip"]) for name, data in preset_names()]


def test_every_clip_has_a_default_preset_and_more():
    clips = [clip for _, clip in PRESETS]
    assert set(clips) == set(ORACLES)
    assert all(name in dict(PRESETS) for name in ORACLES)
    assert len(PRESETS) >= 15


@pytest.mark.parametrize("name, clip", PRESETS)
def test_preset_shows_torchs_numbers(name, clip):
    inputs = inputs_for(clip, preset=name)
    built = build(clip, inputs)
    ORACLES[clip](built, inputs)
    assert built.unexplained() == []


@pytest.mark.parametrize("name, clip", PRESETS[:3])
def test_preset_dry_run_through_the_cli(tmp_path, name, clip):
    code, out = cli(clip, "--preset", name, "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    assert manifest(tmp_path / f"{clip}.numbers.json")["numbers"]
