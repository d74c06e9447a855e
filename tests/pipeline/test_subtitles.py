"""Subtitles and script are the steps: every clip's .srt cue is its step's caption (the manifest's)
over the step's time in the real mp4 (decoded from the step videos, within a frame), its script.md
lists the same captions and lengths, and the chapter's srt and script are the clips' behind their
title cards (decoded); in English too (tests/pipeline/test_video.py's English render). Read from the
tiny chapter the suite renders once (tests/support/subtitles.py).

Planted: the chapter joined with every cue one step late (the writer the join calls); one clip's cue
given the next step's times.
"""
import shutil

from conftest import manifest
from scenes.pipeline.jobs import files
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.video import join
from support.subtitles import chapter_times, decoded_steps, script_problems, srt_problems

CHAPTER = "chapter04"


def steps_of(folder, clip):
    """(captions from the manifest, decoded (start, end) of each step, fps)."""
    captions = [s["caption"] for s in manifest(folder / f"{clip}.numbers.json")["steps"]]
    fps, times = decoded_steps(folder / f"{clip}.sections")
    return captions, times, fps


def chapter_steps(folder):
    fps, offsets = chapter_times(folder, specs())
    captions, times = [], []
    for clip in specs():
        said, steps, _ = steps_of(folder, clip)
        captions += said
        times += [(offsets[clip] + a, offsets[clip] + b) for a, b in steps]
    return captions, times, fps


def test_every_clips_srt_and_script_are_its_steps(tiny_chapter):
    problems = []
    for clip in specs():
        captions, times, fps = steps_of(tiny_chapter, clip)
        problems += srt_problems((tiny_chapter / f"{clip}.srt").read_text("utf-8"), captions, times, fps, clip)
        problems += script_problems((tiny_chapter / f"{clip}.script.md").read_text("utf-8"), captions, times,
                                    fps, clip)
    assert problems == [], "\n".join(problems)


def test_the_chapters_srt_and_script_are_the_clips_steps_behind_their_titles(tiny_chapter):
    captions, times, fps = chapter_steps(tiny_chapter)
    problems = srt_problems((tiny_chapter / f"{CHAPTER}.srt").read_text("utf-8"), captions, times, fps, CHAPTER)
    problems += script_problems((tiny_chapter / f"{CHAPTER}.script.md").read_text("utf-8"), captions, times, fps,
                                CHAPTER)
    assert problems == [], "\n".join(problems)


def test_cues_one_step_late_are_named(tiny_chapter, tmp_path, monkeypatch):
    """Planted: the chapter joined again (the real join, from the chapter's parts) with a subtitle
    writer that gives every cue the previous step's caption. Every cue but the first is named."""
    (tmp_path / ".titles").mkdir()
    for clip in specs():
        shutil.copy(tiny_chapter / ".titles" / f"{clip}.mp4", tmp_path / ".titles")
        for suffix in ("mp4", "numbers.json", "script.md"):
            shutil.copy(tiny_chapter / f"{clip}.{suffix}", tmp_path)
        shutil.copytree(tiny_chapter / f"{clip}.sections", tmp_path / f"{clip}.sections")
    real = files.srt_text

    def late(captions):
        said = [text for _, _, text in captions]
        return real([(a, b, said[max(n - 1, 0)]) for n, (a, b, _) in enumerate(captions)])
    monkeypatch.setattr(join, "srt_text", late)
    join.join(tmp_path, specs())
    captions, times, fps = chapter_steps(tmp_path)
    problems = srt_problems((tmp_path / f"{CHAPTER}.srt").read_text("utf-8"), captions, times, fps, CHAPTER)
    named = {int(p.split(":")[0].split()[-1]) for p in problems}
    repeated = {n for n in range(2, len(captions) + 1) if captions[n - 1] == captions[n - 2]}
    assert named == set(range(2, len(captions) + 1)) - repeated, problems
    assert all("says" in p for p in problems), problems


def test_a_cue_one_step_off_in_time_is_named(tiny_chapter):
    """Planted: one clip's subtitles written (by the writer the runner calls) with its third cue over
    the fourth step's time. That cue is named, and no other."""
    clip = "weighted-average"
    captions, times, fps = steps_of(tiny_chapter, clip)
    steps = manifest(tiny_chapter / f"{clip}.numbers.json")["steps"]
    cues = [(s["start"], s["end"], s["caption"]) for s in steps]
    cues[2] = (steps[3]["start"], steps[3]["end"], steps[2]["caption"])
    problems = srt_problems(files.srt_text(cues), captions, times, fps, clip)
    assert problems and all(p.startswith(f"{clip} cue 3:") for p in problems), problems
