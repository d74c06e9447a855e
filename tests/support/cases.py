"""The contract's cases, shared by every clip's test module and the sweep: a generated legal input,
everything a manifest claims against the clip's oracle (support/NAME_oracle.py), a build with its
frames read back, and contract_cases(clip), the two parametrised tests each clip's module holds
(so that `--dist loadfile` deals the clips out to the workers).

SWEEP_CASES (environment) sets the generated cases per clip (8), of which a run checks 3, other
ones at each commit (tests/support/sample.py; tests/support/sweep.py runs 300)."""
import importlib
import os
import random

import pytest

from conftest import build, inputs_for
from scenes.pipeline.jobs.inputs import InputError, check, preset_names, raw_inputs
from scenes.pipeline.jobs.registry import scene, specs
from support.contract import (block_problems, cell_problems, colour_problems, coverage, declared_blocks,
                              layout_problems, oracle_problems, precision_problems, structure_problems,
                              user_problems)
from support.pictures import heat_problems, picture_problems
from support.pixels import number_problems
from support.shared_builds import shared_build

CASES_PER_CLIP = int(os.environ.get("SWEEP_CASES", "8"))


def clip_package(clip):
    """The clip's place under scenes/clips/: causal_mask for scenes.clips.causal_mask.scene."""
    return scene(clip).__module__.split(".")[2]


def oracle_module(clip):
    """tests/support/NAME_oracle.py: oracle(inputs), legal_inputs(rng), and marks(inputs) and
    axis_names(inputs) where the clip marks cells or names its axes."""
    return importlib.import_module(f"support.{clip_package(clip)}_oracle")


def generated(clip, seed):
    """A legal input drawn by the clip's own generator (refused draws are redrawn)."""
    rng = random.Random(f"{clip}-{seed}")
    for _ in range(50):
        raw = oracle_module(clip).legal_inputs(rng)
        try:
            return raw, check(clip, raw_inputs(clip, None, raw))
        except InputError:
            continue
    raise AssertionError(f"{clip}: the generator draws no legal input")


def proof_problems(clip, inputs, m):
    """Everything the manifest claims, against the clip's oracle: the numbers' values and
    exact texts, their precision, their places and marks, their colours (each block's as its clip
    declares it), the pictures that stand for numbers (bars, dividing lines, heat colours), every cell of a grid
    shown, the user texts, and nothing recorded that is never on screen. (A typed number fails
    the build itself.)"""
    tests = oracle_module(clip)
    expected = tests.oracle(inputs)
    names = tests.axis_names(inputs) if hasattr(tests, "axis_names") else None
    marks = tests.marks(inputs) if hasattr(tests, "marks") else None
    problems = layout_problems(m)
    problems += oracle_problems(m["numbers"], expected)
    problems += precision_problems(m, expected)
    problems += structure_problems(m, expected, names, marks)
    problems += colour_problems(m, expected, marks, tests.roles(inputs) if hasattr(tests, "roles") else None)
    problems += block_problems(m, declared_blocks(clip))
    problems += picture_problems(m, expected) + heat_problems(m, expected)
    problems += cell_problems(m)
    problems += user_problems(m, inputs)
    problems += [f"{r['label']} = {r['text']!r} is recorded but never on screen"
                 for r in m["numbers"] if r["step"] is None and not r.get("spoken")]
    return problems


def proven(clip, inputs, frames=False, lang="zh", shared=False):
    """shared: the session's shared build, with its frames (tests/support/shared_builds.py)."""
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

    @pytest.mark.sampled(3)                     # the default and two presets a run (support/sample.py)
    @pytest.mark.parametrize("preset", presets, ids=[p or "default" for p in presets])
    def test_presets_keep_the_contract(preset, capsys):
        """Every step's frame read back too. With the default inputs, the oracle coverage is
        printed: every label drawn is checked by an oracle (a label without one is a problem)."""
        inputs = inputs_for(clip, preset)
        built, problems = proven(clip, inputs, shared=True)
        assert problems == [], "\n".join(problems[:20])
        if preset is None:
            share = coverage(built.numbers, oracle_module(clip).oracle(inputs))
            with capsys.disabled():
                print(f"\noracle coverage {clip}: {share:.1%} of {len(built.numbers)} drawn labels")
            assert share == 1.0

    @pytest.mark.sampled(3)
    @pytest.mark.parametrize("seed", range(CASES_PER_CLIP))
    def test_generated_inputs_keep_the_contract(seed):
        """Every other case is drawn in English (its captions are longer)."""
        raw, inputs = generated(clip, seed)
        _, problems = proven(clip, inputs, lang="en" if seed % 2 else "zh")
        assert problems == [], f"{clip} {raw}:\n" + "\n".join(problems[:20])
    return test_presets_keep_the_contract, test_generated_inputs_keep_the_contract
