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
