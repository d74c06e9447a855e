"""Every clip, every preset and generated legal inputs at the limits: each frame keeps the
legibility contract, and every number drawn equals an independent oracle (PyTorch, or numpy
written here) at the precision it is drawn with. The cases run in each clip's own test module
(`contract_cases(clip)`), so that `--dist loadfile` deals the clips out to the workers.

For the defaults and every preset, each step's last frame (854x480) is also read back
(tests/pixels.py): every number's box must show its recorded text.

Each clip's test module (tests/test_<module>.py) provides
    oracle(inputs)     -> {label: value} for every label the clip may draw, from torch/numpy
    legal_inputs(rng)  -> raw options drawn at the limits of the clip's rules
SWEEP_CASES (environment) sets the generated cases per clip; CI samples 8 (tests/sweep.py runs 300).
"""
import importlib
import os
import random

import pytest

from conftest import build, inputs_for
from contract import (coverage, layout_problems, oracle_problems, precision_problems, structure_problems,
                      user_problems)
from pixels import number_problems
from shared_builds import shared_build
from scenes.pipeline.inputs import InputError, check, preset_names, raw_inputs
from scenes.pipeline.registry import scene, specs

CASES_PER_CLIP = int(os.environ.get("SWEEP_CASES", "8"))


def clip_tests(clip):
    """tests/test_<module>.py of the clip's scene module."""
    return importlib.import_module("test_" + scene(clip).__module__.rsplit(".", 1)[1])


def generated(clip, seed):
    """A legal input drawn by the clip's own generator (refused draws are redrawn)."""
    rng = random.Random(f"{clip}-{seed}")
    for _ in range(50):
        raw = clip_tests(clip).legal_inputs(rng)
        try:
            return raw, check(clip, raw_inputs(clip, None, raw))
        except InputError:
            continue
    raise AssertionError(f"{clip}: the generator draws no legal input")


def proof_problems(clip, inputs, m):
    """Everything the manifest claims, against the clip's oracle: the numbers' values and
    exact texts, their precision, their places and marks, the user texts, and nothing recorded
    that is never on screen. (A typed number fails the build itself.)"""
    tests = clip_tests(clip)
    expected = tests.oracle(inputs)
    names = tests.axis_names(inputs) if hasattr(tests, "axis_names") else None
    marks = tests.marks(inputs) if hasattr(tests, "marks") else None
    problems = layout_problems(m)
    problems += oracle_problems(m["numbers"], expected)
    problems += precision_problems(m, expected)
    problems += structure_problems(m, expected, names, marks)
    problems += user_problems(m, inputs)
    problems += [f"{r['label']} = {r['text']!r} is recorded but never on screen"
                 for r in m["numbers"] if r["step"] is None and not r.get("spoken")]
    return problems


def proven(clip, inputs, frames=False, lang="zh", shared=False):
    """shared: the session's shared build, with its frames (tests/shared_builds.py)."""
    built = shared_build(clip, inputs, lang) if shared else build(clip, inputs, frames=frames, lang=lang)
    m = built.manifest()
    problems = proof_problems(clip, inputs, m)
    for image, step in zip(built.frames, m["layout"]):   # the pixels show each recorded number
        problems += number_problems(image, step, m["frame"])
    return built, problems


PRESETS = [(clip, None) for clip in specs()] + [(d["clip"], n) for n, d in preset_names()]


def contract_cases(clip):
    """The contract cases of one clip, for its own test module (so that `--dist loadfile`
    spreads the clips over the workers):

        test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = contract_cases("dropout")
    """
    presets = [p for c, p in PRESETS if c == clip]

    @pytest.mark.parametrize("preset", presets, ids=[p or "default" for p in presets])
    def test_presets_keep_the_contract(preset, capsys):
        """Every step's frame read back too. With the default inputs, the oracle coverage is
        printed: every label drawn is checked by an oracle (a label without one is a problem)."""
        inputs = inputs_for(clip, preset)
        built, problems = proven(clip, inputs, shared=True)
        assert problems == [], "\n".join(problems[:20])
        if preset is None:
            share = coverage(built.numbers, clip_tests(clip).oracle(inputs))
            with capsys.disabled():
                print(f"\noracle coverage {clip}: {share:.1%} of {len(built.numbers)} drawn labels")
            assert share == 1.0

    @pytest.mark.parametrize("seed", range(CASES_PER_CLIP))
    def test_generated_inputs_keep_the_contract(seed):
        """Every other case is drawn in English (its captions are longer)."""
        raw, inputs = generated(clip, seed)
        _, problems = proven(clip, inputs, lang="en" if seed % 2 else "zh")
        assert problems == [], f"{clip} {raw}:\n" + "\n".join(problems[:20])
    return test_presets_keep_the_contract, test_generated_inputs_keep_the_contract


@pytest.mark.parametrize("clip", list(specs()))
def test_every_clip_runs_its_contract_cases(clip):
    """A clip's test module holds its contract cases (README, "Adding a clip")."""
    module = clip_tests(clip)
    cases = [getattr(module, n, None) for n in ("test_presets_keep_the_contract",
                                                  "test_generated_inputs_keep_the_contract")]
    assert all(c is not None and c.__qualname__.startswith("contract_cases.") for c in cases), \
        f"{module.__name__} lacks: test_presets_keep_the_contract, test_generated_inputs_keep_the_contract = " \
        f"contract_cases({clip!r})"


@pytest.mark.parametrize("clip", list(specs()))
def test_the_contract_reads_every_rule_the_clips_oracle_module_has(clip):
    """The contract reads oracle, legal_inputs, marks and axis_names from the clip's test module
    and skips marks or names it lacks: where the rules live in tests/<module>_oracle.py, each one
    there must be re-exported (a split that forgot marks would pass with no mark checked)."""
    module = clip_tests(clip)
    try:
        rules = importlib.import_module(module.__name__.removeprefix("test_") + "_oracle")
    except ModuleNotFoundError:
        return
    for name in ("oracle", "legal_inputs", "marks", "axis_names"):
        if hasattr(rules, name):
            assert getattr(module, name, None) is getattr(rules, name), f"{module.__name__} lacks {name}"
