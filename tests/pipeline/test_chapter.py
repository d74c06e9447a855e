"""The chapter video: clips joined in book order behind title cards, one srt, a section list."""
import json
import os
import stat

import av
import pytest

from conftest import parse_srt, probe
from scenes.pipeline.run import chapter
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.run.runner import QUALITIES, render_clip
from conftest import inputs_for

FRAME = 1 / QUALITIES["tiny"][2]
BOOK_ORDER = ["4.1", "4.2", "4.4", "4.5", "4.6", "4.7", "4.8", "4.9"]   # 4.3 stays inside score-grid


@pytest.fixture(scope="module")
def rendered(tiny_chapter):
    return tiny_chapter


def test_joined_duration_is_the_sum_of_titles_and_clips(rendered):
    parts = [chapter.duration(rendered / f"{c}.mp4") + chapter.duration(rendered / ".titles" / f"{c}.mp4")
             for c in specs()]
    joined = probe(rendered / "chapter04.mp4")
    assert abs(joined["duration"] - sum(parts)) <= FRAME * 2 * len(parts)
    assert (joined["width"], joined["height"]) == (256, 144) and joined["middle_spread"] > 5


def test_sections_in_book_order_as_mp4_chapters_and_json(rendered):
    sections = json.loads((rendered / "chapter04.chapters.json").read_text("utf-8"))
    assert [s["clip"] for s in sections] == list(specs())
    assert [s["section"] for s in sections] == [spec.section for spec in specs().values()]
    assert [s["section"] for s in sections] == [s for s in BOOK_ORDER if s in {x["section"] for x in sections}]
    assert all(a["end"] == b["start"] for a, b in zip(sections, sections[1:]))
    with av.open(str(rendered / "chapter04.mp4")) as box:
        marks = box.chapters()
    assert [m["metadata"]["title"].split()[0] for m in marks] == [s["section"] for s in sections]


def test_chapter_srt_is_monotonic_inside_the_video(rendered):
    captions = parse_srt((rendered / "chapter04.srt").read_text("utf-8"))
    per_clip = sum(len(parse_srt((rendered / f"{c}.srt").read_text("utf-8"))) for c in specs())
    assert len(captions) == per_clip
    assert all(a < b for a, b, _ in captions)
    assert all(captions[i][1] <= captions[i + 1][0] for i in range(len(captions) - 1))
    assert captions[-1][1] <= chapter.duration(rendered / "chapter04.mp4") + FRAME
    sections = json.loads((rendered / "chapter04.chapters.json").read_text("utf-8"))
    first = parse_srt((rendered / "score-grid.srt").read_text("utf-8"))[0]
    assert abs(captions[len(parse_srt((rendered / "weighted-average.srt").read_text("utf-8")))][0]
               - (sections[1]["start"] + chapter.duration(rendered / ".titles/score-grid.mp4") + first[0])) < 0.01


def test_a_rerun_with_nothing_changed_renders_nothing(rendered, monkeypatch):
    assert chapter.tasks_for(rendered, "tiny", True) == []
    real = chapter.stamp_of
    monkeypatch.setattr(chapter, "stamp_of",
                        lambda clip, *rest: real(clip, *rest) + ("x" if clip == "dropout" else ""))
    assert [t.label for t in chapter.tasks_for(rendered, "tiny", True)] == ["dropout"]


def test_sections_one_mp4_per_step_with_its_index(tmp_path):
    render_clip("dropout", inputs_for("dropout"), quality="tiny", out=tmp_path, sections=True)
    folder = tmp_path / "dropout.sections"
    index = json.loads(next(folder.glob("*.json")).read_text())
    steps = json.loads((tmp_path / "dropout.numbers.json").read_text("utf-8"))["steps"]
    videos = [s for s in index if s["name"].startswith("step-")]
    assert len(videos) == len(steps)
    assert all((folder / s["video"]).exists() for s in index)


TINY_CLIP = '''"""A clip for the registry test: one step, one number, section 4.10."""
from scenes.kit.scene.base import ClipScene
from scenes.pipeline.jobs.inputs import number
from scenes.pipeline.jobs.registry import Clip, Option


def rules(raw):
    return {"n": number(raw.get("n", 2), "n")}


class TinyClip(ClipScene):
    spec = Clip(name="tiny-clip", section="4.10", title="登记测试", summary="a clip added by one module",
                rules=rules, defaults={"n": 2}, options=(Option("n", "the number shown"),))

    def compute(self):
        return self.inputs["n"]

    def construct(self):
        self.step("一个数：{}", self.book.fmt("n", self.result))
        self.add(self.book.num("n", self.result))
        self.end()
'''


def test_a_new_clip_is_one_module(rendered, tmp_path):
    """Adding scenes/clips/tiny_clip.py alone: listed, validated, rendered, in the chapter
    after 4.9 (section "4.10", not 4.1), collected by the tests; the other clips are reused."""
    import shutil
    import subprocess
    import sys
    from conftest import ROOT
    copy = tmp_path / "repo"
    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                            text=True, check=True).stdout.split()
    for name in listed:
        if (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    (copy / "scenes/clips/tiny_clip.py").write_text(TINY_CLIP, encoding="utf-8")

    def run(*args):
        return subprocess.run([sys.executable, *args], cwd=copy, capture_output=True, text=True)

    clips = [ln.split()[0] for ln in run("render.py", "list").stdout.splitlines() if not ln.startswith(" ")]
    assert clips == list(specs()) + ["tiny-clip"]
    bad = run("render.py", "tiny-clip", "--n", "abc", "--out", "o1")
    assert bad.returncode == 2 and "--n" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
    assert not (copy / "o1").exists()
    assert run("render.py", "tiny-clip", "--dry-run", "--out", "o2").returncode == 0
    shown = json.loads((copy / "o2/tiny-clip.numbers.json").read_text("utf-8"))["numbers"]
    assert {float(r["text"]) for r in shown if r["label"] == "n"} == {2}
    shutil.copytree(rendered, copy / "media")
    before = {c: (copy / "media" / f"{c}.mp4").stat().st_mtime_ns for c in specs()}
    done = run("render.py", "chapter", "--quality", "tiny", "--out", "media")
    assert done.returncode == 0, done.stderr
    sections = json.loads((copy / "media/chapter04.chapters.json").read_text("utf-8"))
    assert [s["clip"] for s in sections] == list(specs()) + ["tiny-clip"]
    assert sections[-1]["section"] == "4.10"
    card = json.loads((copy / "media/.titles/tiny-clip.numbers.json").read_text("utf-8"))
    assert [r["text"] for r in card["numbers"] if r["label"] == "section"] == ["4.10"]
    assert {c: (copy / "media" / f"{c}.mp4").stat().st_mtime_ns for c in specs()} == before
    # Editing a compute file re-renders the clips that import it, and nothing else.
    stamp = {c: (copy / "media" / f"{c}.mp4").stat().st_mtime_ns for c in specs()}
    with open(copy / "scenes/compute/dropout.py", "a", encoding="utf-8") as f:
        f.write("\n# edited by the test\n")
    assert run("render.py", "chapter", "--quality", "tiny", "--out", "media").returncode == 0
    changed = [c for c in specs() if (copy / "media" / f"{c}.mp4").stat().st_mtime_ns != stamp[c]]
    users = [c for c in specs() if chapter.ROOT / "scenes/compute/dropout.py" in chapter.dependencies(scene_module(c))]
    assert changed == users and 0 < len(users) < len(specs())
    collected = run("-m", "pytest", "tests/clips/test_contract.py", "--collect-only", "-q", "-p", "no:xdist",
                    "-p", "no:cacheprovider", "-o", "addopts=")
    assert "tiny-clip" in collected.stdout


def test_each_clip_is_named_in_one_source_file_only():
    """No table of clips outside the clip modules: a clip's name is a string literal in its own
    module, and in no file of the kit, the pipeline, the compute modules or render.py (another
    clip may have an option of the same word: future-check's --dropout, which a compute module's
    record kinds name as Given("dropout"))."""
    import ast
    from conftest import ROOT
    sources = [p for p in (ROOT / "scenes").rglob("*.py") if "clips" not in p.parts] + [ROOT / "render.py"]

    def options(tree):          # the words an option is named by: Given(OPTION, ...)
        return {id(c.args[0]) for c in ast.walk(tree) if isinstance(c, ast.Call) and c.args
                and getattr(c.func, "id", getattr(c.func, "attr", None)) == "Given"}
    for clip in specs():
        holders = []
        for p in sources:
            tree = ast.parse(p.read_text("utf-8"))
            named = options(tree)
            if any(isinstance(n, ast.Constant) and n.value == clip and id(n) not in named for n in ast.walk(tree)):
                holders.append(p)
        assert holders == [], clip
        own = ast.parse((ROOT / scene_file(clip)).read_text("utf-8"))
        assert any(isinstance(n, ast.Constant) and n.value == clip for n in ast.walk(own)), clip


def scene_file(clip):
    from scenes.pipeline.jobs.registry import scene
    return scene(clip).__module__.replace(".", "/") + ".py"


def test_section_ids_sort_as_the_book_numbers_them():
    from scenes.pipeline.jobs.registry import section_key
    assert sorted(["4.10", "练习", "4.9", "4.2", "4.1"], key=section_key) == ["4.1", "4.2", "4.9", "4.10", "练习"]


def scene_module(clip):
    from scenes.pipeline.jobs.registry import scene
    return scene(clip).__module__


def test_the_encoder_settings_reach_the_file(rendered):
    """Manim's tempconfig drops unknown keys silently: read x264's own record of its settings
    (the SEI string in the stream) back from a rendered clip: CRF 20 at the veryfast preset."""
    from scenes.pipeline.run.runner import ENCODER
    data = (rendered / f"{next(iter(specs()))}.mp4").read_bytes()
    start = data.index(b"x264 - core")
    options = data[start:data.index(b"\0", start)].decode("ascii", "replace")
    assert f"crf={float(ENCODER['crf']):.1f}" in options
    assert "subme=2" in options and " ref=1 " in options     # what x264's veryfast preset sets
    assert "subme=7" not in options                           # medium, Manim's default


def test_every_output_is_readable_as_a_new_file_is(rendered):
    """Every file the chapter writes (the joined mp4, its srt, page, manifests, step videos) has the
    mode the user's umask gives a new file, as NAME.mp4 has: never a temporary file's 0600."""
    mask = os.umask(0o022)
    os.umask(mask)
    want = 0o666 & ~mask
    modes = {str(p.relative_to(rendered)): stat.S_IMODE(p.stat().st_mode) for p in rendered.rglob("*")
             if p.is_file() and not p.name.startswith(".")}
    assert "chapter04.mp4" in modes and "chapter04.srt" in modes
    assert {name: oct(m) for name, m in modes.items() if m != want} == {}


def test_unknown_manim_settings_are_refused():
    from scenes.pipeline.run.runner import checked_config
    with pytest.raises(KeyError, match="video_encoder_option"):
        checked_config({"video_encoder_option": {"crf": "20"}})
