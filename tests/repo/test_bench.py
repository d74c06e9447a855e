"""The benchmark's scripts still import against the code they measure (bench/naive.py imported a
helper the kit had moved, and only a benchmark run would have found out), and the naive baseline
draws the chapter's grids: X Xᵀ and its softmax by rows and by columns, as torch has them."""
import importlib.util

import pytest
import torch
import torch.nn.functional as F

from conftest import ROOT

SCRIPTS = sorted((ROOT / "bench").glob("*.py"))


def load(path):
    spec = importlib.util.spec_from_file_location(f"bench_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", SCRIPTS, ids=[p.stem for p in SCRIPTS])
def test_each_bench_script_imports(path, monkeypatch):
    monkeypatch.syspath_prepend(str(path.parent))      # as `python bench/NAME.py` runs it
    load(path)


def test_the_naive_baseline_draws_the_chapters_grids():
    from scenes.pipeline.jobs.inputs import check, raw_inputs
    x = torch.tensor(check("weighted-average", raw_inputs("weighted-average", "journey-weighted-average"))["x"],
                     dtype=torch.float64)
    gram, rows, cols = load(ROOT / "bench" / "naive.py").grids()
    torch.testing.assert_close(torch.tensor(gram), x @ x.T)
    torch.testing.assert_close(torch.tensor(rows), F.softmax(x @ x.T, dim=-1))
    torch.testing.assert_close(torch.tensor(cols), F.softmax(x @ x.T, dim=-2))
