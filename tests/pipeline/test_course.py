"""A lecturer's own edition: `render.py chapter --course FILE` renders every clip the course
names with its inputs (checked by each clip's own rules first), and a course with mistakes is
refused with every mistake at once, one line each, exit 2, nothing written; a clip table naming a
preset renders the preset's inputs (planted: the preset dropped after its check)."""
import json

from conftest import ROOT, run_cli
from scenes.pipeline.jobs.course import read_course
from scenes.pipeline.jobs.inputs import manifest_inputs
from scenes.pipeline.jobs.stamps import stamp_of
from scenes.pipeline.run.chapter import render_chapter

EXAMPLE = ROOT / "assets" / "courses" / "zh-sentence.toml"


def test_the_example_course_names_every_clip_with_inputs_the_rules_accept():
    course = read_course(EXAMPLE)
    from scenes.pipeline.jobs.registry import specs
    assert set(course.checked) == set(specs())
    assert course.raw["causal-mask"]["tokens"] == "我 喜欢 学习 注意力"          # the chapter's tokens
    assert course.raw["weighted-average"]["x"] == "0.9 0.1 0.3; 0.2 0.8 0.5; 0.4 0.6 0.7; 0.7 0.3 0.9"


def test_a_course_clip_is_a_render_of_its_own_stamp():
    course = read_course(EXAMPLE)
    book = stamp_of("dropout", "tiny", True)
    assert stamp_of("dropout", "tiny", True, raw=course.raw["dropout"]) != book


def test_three_mistakes_in_three_clips_are_three_lines_and_nothing_is_written(tmp_path):
    course = tmp_path / "course.toml"
    course.write_text('[weighted-average]\nquery = 9\n\n[dropout]\np = 2\n\n[multihead]\nheads = "five"\n'
                      '\n[causal-mask]\ntrack = 1\n', "utf-8")
    done = run_cli("chapter", "--course", str(course), "--quality", "tiny", "--out", str(tmp_path / "out"))
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(lines) == 3, lines
    assert [line.split("] ")[0].split("[")[1] for line in lines] == ["weighted-average", "dropout", "multihead"]
    assert all(line.startswith(f"Error: {course}: [") for line in lines)
    assert [line.split("] ")[1].split()[0] for line in lines] == ["query", "p", "heads"]
    assert not (tmp_path / "out").exists()


def test_unknown_clips_options_and_values_are_named(tmp_path):
    course = tmp_path / "c.toml"
    course.write_text('pace = "glacial"\n[no-such-clip]\nx = 1\n[dropout]\nweight = "0.1"\n', "utf-8")
    done = run_cli("chapter", "--course", str(course), "--out", str(tmp_path / "out"))
    assert done.returncode == 2
    said = done.stderr
    assert "pace: one of" in said and "[no-such-clip]: no such clip" in said and "[dropout] weight" in said
    assert not (tmp_path / "out").exists()


def test_the_example_course_renders_as_a_chapter_with_its_inputs(tmp_path):
    """Two clips of the course (the tiny chapter already renders the book's): each clip's manifest
    carries the course's inputs, and the chapter and its page are there."""
    course = read_course(EXAMPLE)
    clips = ["weighted-average", "dropout"]
    render_chapter("tiny", tmp_path, clips=clips, course=course)
    for clip in clips:
        drawn = json.loads((tmp_path / f"{clip}.numbers.json").read_text("utf-8"))["inputs"]
        assert drawn == json.loads(json.dumps(manifest_inputs(course.checked[clip]))), clip
    tokens = json.loads((tmp_path / "weighted-average.numbers.json").read_text("utf-8"))
    assert "注意力" in json.dumps(tokens["layout"], ensure_ascii=False)
    assert (tmp_path / "chapter04.mp4").exists() and (tmp_path / "chapter04.html").exists()


def test_a_course_sets_the_chapters_theme_and_a_wrong_one_is_named(tmp_path):
    from scenes.pipeline.jobs.course import CourseError
    course = tmp_path / "light.toml"
    course.write_text('theme = "light"\n[dropout]\np = "0.2"\n', "utf-8")
    assert read_course(course).theme == "light"
    course.write_text('theme = "sepia"\n[dropout]\np = "0.2"\n', "utf-8")
    try:
        read_course(course)
    except CourseError as err:
        assert err.lines == [f"{course}: theme: one of dark, light"]
    else:
        raise AssertionError("a course in an unknown theme was read")


def test_a_light_chapters_renders_say_their_theme_wherever_they_run(tmp_path):
    """A cluster's workers do not share this process's environment: every clip and title card
    of a light chapter names the theme on its command line; a dark one's lines stay as they were."""
    from scenes.kit.text import style
    from scenes.pipeline.run.chapter import tasks_for
    dark = tasks_for(tmp_path, "tiny", False)
    assert dark and not any("--theme" in t.args for t in dark)
    try:
        style.use("light")
        light = tasks_for(tmp_path, "tiny", False)
    finally:
        style.use("dark")
    assert len(light) == len(dark)
    assert all(t.args[t.args.index("--theme") + 1] == "light" for t in light)


def input_differences(drawn, want):
    """The options whose rendered inputs (a manifest's) are not the wanted ones."""
    return [f"{k}: rendered {drawn.get(k)!r}, the preset's {want[k]!r}" for k in sorted(want) if drawn.get(k) != want[k]]


def test_a_course_naming_a_preset_renders_the_presets_inputs(tmp_path, monkeypatch):
    """A clip table that names only a preset, rendered at tiny quality: the manifest's inputs are the
    preset's (read as `render.py CLIP --preset NAME` reads it, not through the course). Planted: the
    preset checked and then dropped (the clip's table keeps the book's inputs), the chapter's own
    command line for the clip run as a dry run: the inputs it changes are named."""
    from scenes.pipeline.jobs import course as courses
    from scenes.pipeline.jobs.inputs import raw_inputs
    from scenes.pipeline.jobs.registry import specs
    from scenes.pipeline.run.chapter import tasks_for
    from conftest import cli, inputs_for
    clip, preset = "weighted-average", "journey-weighted-average"
    course = tmp_path / "preset.toml"
    course.write_text(f'[{clip}]\npreset = "{preset}"\n', "utf-8")
    want = json.loads(json.dumps(manifest_inputs(inputs_for(clip, preset))))
    render_chapter("tiny", tmp_path / "real", sections=False, clips=[clip], course=read_course(course))
    drawn = json.loads((tmp_path / "real" / f"{clip}.numbers.json").read_text("utf-8"))["inputs"]
    assert input_differences(drawn, want) == []
    real = courses.clip_inputs

    def dropped(name, table, tokens, shown):
        raw, checked = real(name, table, tokens, shown)        # checked ...
        return raw_inputs(name), checked                        # ... and dropped
    monkeypatch.setattr(courses, "clip_inputs", dropped)
    planted = tmp_path / "planted"
    task = next(t for t in tasks_for(planted, "tiny", False, clips={clip: specs()[clip]}, course=read_course(course))
                if t.args[0] == clip)
    code, out = cli(*task.args, "--dry-run")
    assert code == 0, out
    drawn = json.loads((planted / f"{clip}.numbers.json").read_text("utf-8"))["inputs"]
    named = {line.split(":")[0] for line in input_differences(drawn, want)}
    assert named == {"x", "tokens"}, named
