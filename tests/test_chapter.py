"""The chapter video: clips joined in book order behind title cards, one srt, a section list."""
import json

import av
import pytest

from conftest import parse_srt, probe
from scenes import chapter
from scenes.runner import QUALITIES, available, render_clip
from conftest import inputs_for

FRAME = 1 / QUALITIES["tiny"][2]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    out = tmp_path_factory.mktemp("chapter")
    chapter.render_chapter("tiny", out)
    return out


def test_joined_duration_is_the_sum_of_titles_and_clips(rendered):
    parts = [chapter.duration(rendered / f"{c}.mp4") + chapter.duration(rendered / ".titles" / f"{c}.mp4")
             for c in available()]
    joined = probe(rendered / "chapter04.mp4")
    assert abs(joined["duration"] - sum(parts)) <= FRAME * 2 * len(parts)
    assert (joined["width"], joined["height"]) == (256, 144) and joined["middle_spread"] > 5


def test_sections_in_book_order_as_mp4_chapters_and_json(rendered):
    sections = json.loads((rendered / "chapter04.chapters.json").read_text("utf-8"))
    assert [s["clip"] for s in sections] == list(available())
    assert [s["section"] for s in sections] == ["4.1", "4.2", "4.4", "4.6", "4.7"]
    assert all(a["end"] == b["start"] for a, b in zip(sections, sections[1:]))
    with av.open(str(rendered / "chapter04.mp4")) as box:
        marks = box.chapters()
    assert [m["metadata"]["title"].split()[0] for m in marks] == [s["section"] for s in sections]


def test_chapter_srt_is_monotonic_inside_the_video(rendered):
    captions = parse_srt((rendered / "chapter04.srt").read_text("utf-8"))
    per_clip = sum(len(parse_srt((rendered / f"{c}.srt").read_text("utf-8"))) for c in available())
    assert len(captions) == per_clip
    assert all(a < b for a, b, _ in captions)
    assert all(captions[i][1] <= captions[i + 1][0] for i in range(len(captions) - 1))
    assert captions[-1][1] <= chapter.duration(rendered / "chapter04.mp4") + FRAME
    sections = json.loads((rendered / "chapter04.chapters.json").read_text("utf-8"))
    first = parse_srt((rendered / "score-grid.srt").read_text("utf-8"))[0]
    assert abs(captions[len(parse_srt((rendered / "weighted-average.srt").read_text("utf-8")))][0]
               - (sections[1]["start"] + chapter.duration(rendered / ".titles/score-grid.mp4") + first[0])) < 0.01


def test_a_rerun_with_nothing_changed_renders_nothing(rendered, monkeypatch):
    assert chapter.tasks_for(rendered, "tiny", False) == []
    real = chapter.stamp_of
    monkeypatch.setattr(chapter, "stamp_of",
                        lambda clip, q, s: real(clip, q, s) + ("x" if clip == "dropout" else ""))
    assert [t[0] for t in chapter.tasks_for(rendered, "tiny", False)] == ["dropout", "title dropout"]


def test_sections_one_mp4_per_step_with_its_index(tmp_path):
    render_clip("dropout", inputs_for("dropout"), quality="tiny", out=tmp_path, sections=True)
    folder = tmp_path / "dropout.sections"
    index = json.loads(next(folder.glob("*.json")).read_text())
    steps = json.loads((tmp_path / "dropout.numbers.json").read_text("utf-8"))["steps"]
    videos = [s for s in index if s["name"].startswith("step-")]
    assert len(videos) == len(steps)
    assert all((folder / s["video"]).exists() for s in index)
