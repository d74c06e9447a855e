"""Presets (the book's examples and its "试一试" cases) are data files naming a registered clip;
each builds through the CLI. Their numbers and frames are checked in test_contract.py."""
import pytest

from conftest import cli, manifest
from scenes.pipeline.jobs.inputs import preset_names
from scenes.pipeline.jobs.registry import specs

PRESETS = [(name, data["clip"]) for name, data in preset_names()]


def test_every_preset_names_a_registered_clip_and_has_a_title():
    assert {clip for _, clip in PRESETS} <= set(specs())
    assert all(data["title"] and data["inputs"] for _, data in preset_names())
    assert len(PRESETS) >= 15


@pytest.mark.parametrize("name, clip", PRESETS[:3])
def test_preset_dry_run_through_the_cli(tmp_path, name, clip):
    code, out = cli(clip, "--preset", name, "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    assert manifest(tmp_path / f"{clip}.numbers.json")["numbers"]
