"""The project is a package (pyproject.toml, installed editable by the set-up): `scenes`
imports from any folder and a plain `manim` run of a clip file works without sys.path edits."""
import subprocess
import sys
from importlib import metadata

from conftest import ROOT


def test_the_setup_installs_the_project_editable():
    dist = metadata.distribution("attention-lectures")
    assert dist.version and (ROOT / "pyproject.toml").exists()
    done = subprocess.run([sys.executable, "-c", "import scenes.kit.page.page, sys; print(scenes.kit.page.page.__file__)"],
                          cwd="/", capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_plain_manim_renders_a_clip_file(tmp_path):
    manim = ROOT / ".venv/bin/manim"
    done = subprocess.run([str(manim), "-ql", "--dry_run", "--media_dir", str(tmp_path),
                           str(ROOT / "scenes/clips/causal_mask/scene.py"), "CausalMask"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Rendered CausalMask" in done.stdout + done.stderr
