"""The CLI contract of SPEC.md section 1: list, presets, exit codes, nothing written on bad input."""
import pytest

from conftest import cli, run_cli
from scenes.pipeline.jobs.registry import section_key, specs

CLIPS = list(specs())


def test_list_names_every_clip_in_book_order_and_its_presets():
    code, out = cli("list")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines() if not line.startswith(" ")]
    assert names == CLIPS
    sections = [specs()[n].section for n in names]
    assert sections == sorted(sections, key=section_key)
    assert "--preset two-keys" in out and "--preset journey-weighted-average" in out


def test_unknown_preset_lists_the_valid_ones(tmp_path):
    code, out = cli("causal-mask", "--preset", "nope", "--out", str(tmp_path / "o"))
    assert code == 2 and len(out.strip().splitlines()) == 1
    assert "--preset" in out and "two-keys" in out and "zero-scores" in out
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("preset", ["two-keys", "../assets/presets/two-keys", "/etc/passwd"])
def test_a_preset_of_another_clip_or_a_path_is_refused(tmp_path, preset):
    code, out = cli("dropout", "--preset", preset, "--out", str(tmp_path / "o"))
    assert code == 2 and "--preset" in out
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("args, option", [
    (["weighted-average", "--bogus", "1"], "--bogus"),
    (["weighted-average", "--format", "avi"], "--format"),
    (["nope"], "nope"),
])
def test_click_usage_errors_are_one_line_exit_2(tmp_path, args, option):
    code, out = cli(*args, "--out", str(tmp_path / "o"))
    assert code == 2 and len(out.strip().splitlines()) == 1 and option in out, out


def test_a_render_failure_exits_1_and_leaves_no_partial_file(tmp_path, monkeypatch):
    from scenes.clips.weighted_average.scene import WeightedAverage

    def broken(self):
        self.show_inputs()
        raise RuntimeError("boom")
    monkeypatch.setattr(WeightedAverage, "construct", broken)
    code, out = cli("weighted-average", "--quality", "low", "--out", str(tmp_path))
    assert code == 1 and "boom" in out and len(out.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_the_real_command_line_bad_input(tmp_path):
    done = run_cli("dropout", "--p", "1", "--mode", "train", "--out", str(tmp_path / "o"))
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1 and "--p" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "o").exists()


def test_the_readme_lists_every_clip_in_book_order():
    from conftest import ROOT
    rows = [line.split("`")[1] for line in (ROOT / "README.md").read_text("utf-8").splitlines()
            if line.startswith("| `")]
    assert rows == CLIPS
    assert all((ROOT / "assets" / "gallery" / f"{clip}.png").exists() for clip in CLIPS)


def test_a_step_past_the_last_is_bad_input_naming_the_count(tmp_path):
    code, out = cli("multihead", "--format", "png", "--quality", "tiny", "--step", "99", "--out", str(tmp_path / "o"))
    assert code == 2 and len(out.strip().splitlines()) == 1 and "--step" in out and "steps" in out, out
    assert not (tmp_path / "o").exists()


def test_integer_options_take_their_whole_documented_range(tmp_path):
    code, out = cli("dropout", "--seed", "2147483647", "--dry-run", "--out", str(tmp_path))
    assert code == 0, out
    code, out = cli("dropout", "--seed", "2147483648", "--dry-run", "--out", str(tmp_path / "o"))
    assert code == 2 and "--seed" in out and "2147483647" in out


def test_step_zero_or_negative_is_bad_input(tmp_path):
    for bad in ("0", "-1"):
        code, out = cli("multihead", "--format", "png", "--quality", "tiny", "--step", bad, "--out", str(tmp_path / "o"))
        assert code == 2 and len(out.strip().splitlines()) == 1 and "--step" in out, out
        assert not (tmp_path / "o").exists()


def test_a_missing_recording_is_bad_input_in_a_dry_run_too(tmp_path):
    (tmp_path / "voice" / "multihead").mkdir(parents=True)
    code, out = cli("multihead", "--dry-run", "--voice", str(tmp_path / "voice"), "--out", str(tmp_path / "o"))
    assert code == 2 and len(out.strip().splitlines()) == 1 and "--voice" in out and "01" in out, out
    assert not (tmp_path / "o").exists()


def test_help_and_list_import_no_clip_and_no_manim():
    """The commands are built from the registry's declarations (cached while scenes/ is
    unchanged): --help, list and a clip's --help import neither Manim nor a clip."""
    import subprocess
    import sys
    from conftest import ROOT
    probe = ("import sys\nimport render\nfor args in (['--help'], ['list'], ['dropout', '--help']):\n"
             "    try:\n        render.main(args)\n    except SystemExit:\n        pass\n"
             "print('manim' in sys.modules, any(m.startswith('scenes.clips.') for m in sys.modules), file=sys.stderr)")
    for _ in range(2):          # the first may read the clips (and fill the cache)
        done = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr.split() == ["False", "False"], done.stderr
    assert "--preset two-keys" in done.stdout and "--weights" in done.stdout


def test_the_declarations_cache_is_believed_only_for_the_files_it_was_made_from(tmp_path, monkeypatch):
    import json
    from scenes.pipeline.jobs import registry
    monkeypatch.setattr(registry, "CACHE", tmp_path / "clips.json")
    registry.declarations.cache_clear()
    try:
        first = registry.declarations()
        assert list(first) == CLIPS and [d.options for d in first.values()] == [s.options for s in specs().values()]
        data = json.loads(registry.CACHE.read_text("utf-8"))
        data["clips"][0]["summary"] = "planted"            # a cache of the same files is read as it is
        registry.CACHE.write_text(json.dumps(data), "utf-8")
        registry.declarations.cache_clear()
        assert registry.declarations()[CLIPS[0]].summary == "planted"
        monkeypatch.setattr(registry, "fingerprint", lambda: "other files")
        registry.declarations.cache_clear()
        assert registry.declarations()[CLIPS[0]].summary == specs()[CLIPS[0]].summary
    finally:
        registry.declarations.cache_clear()


def test_the_fingerprint_follows_every_file_under_scenes(tmp_path, monkeypatch):
    from scenes.pipeline.jobs import registry
    monkeypatch.setattr(registry, "SCENES", tmp_path)
    (tmp_path / "clips").mkdir()
    (tmp_path / "clips" / "a.py").write_text("x = 1\n")
    seen = [registry.fingerprint()]
    (tmp_path / "clips" / "a.py").write_text("x = 2\n")
    seen.append(registry.fingerprint())
    (tmp_path / "b.py").write_text("")
    seen.append(registry.fingerprint())
    assert len(set(seen)) == 3
