"""Every clip, every preset and generated legal inputs at the limits: each frame keeps the
legibility contract, and every number drawn equals an independent oracle (PyTorch, or numpy
written here) at the precision it is drawn with. The cases run in each clip's own test module
(`contract_cases(clip)`), so that `--dist loadfile` deals the clips out to the workers.

For the defaults and every preset, each step's last frame (854x480) is also read back
(tests/support/pixels.py): every number's box must show its recorded text.

Each clip has tests/support/NAME_oracle.py with
    oracle(inputs)     -> {label: value} for every label the clip may draw, from torch/numpy
    legal_inputs(rng)  -> raw options drawn at the limits of the clip's rules
and its test module tests/clips/test_NAME.py holds its contract cases (support/cases.py).
"""
import importlib

import pytest

from scenes.pipeline.jobs.registry import specs
from support.cases import clip_package, oracle_module


@pytest.mark.parametrize("clip", list(specs()))
def test_every_clip_runs_its_contract_cases(clip):
    """A clip's test module holds its contract cases (docs/architecture.md, "Adding a clip")."""
    module = importlib.import_module(f"test_{clip_package(clip)}")
    cases = [getattr(module, n, None) for n in ("test_presets_keep_the_contract",
                                                  "test_generated_inputs_keep_the_contract")]
    assert all(c is not None and c.__qualname__.startswith("contract_cases.") for c in cases), \
        f"{module.__name__} lacks: test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = " \
        f"contract_cases({clip!r})"


@pytest.mark.parametrize("clip", list(specs()))
def test_every_clip_has_an_oracle_module(clip):
    """The contract reads oracle and legal_inputs (and marks, axis_names where the clip has them)
    from tests/support/NAME_oracle.py: a clip without one has no independent check."""
    rules = oracle_module(clip)
    assert callable(getattr(rules, "oracle", None)) and callable(getattr(rules, "legal_inputs", None)), rules.__name__


@pytest.mark.parametrize("clip", list(specs()))
def test_every_cell_is_filled_in_a_colour_of_the_palette(clip):
    """A cell's fill (or, unfilled, its frame) says what it holds: the heat scale, the mask's red,
    NaN's grey, a grid line; never a colour the palette does not have (the book's inputs, the
    session's shared build)."""
    from conftest import inputs_for
    from support.contract import PALETTE_ROLES
    from support.shared_builds import shared_build
    m = shared_build(clip, inputs_for(clip)).manifest()
    off = sorted({(st["step"], it["label"], it["cell_role"]) for st in m["layout"] for it in st["items"]
                  if "cell_role" in it and it["cell_role"] not in PALETTE_ROLES | {"heat"}})
    assert off == [], off[:6]
