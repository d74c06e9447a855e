"""The video users get: the real mp4 (not the skip-animations path the other pixel checks read)
ends every step on the fast path's frame, lasts what the manifest says, and shows every number's
recorded text, in the colours of the fast path's; an animation that ends short, or one that is dropped,
is caught, and so is a text drawn in another colour at the same brightness (tests/support/video.py).

VIDEO_CLIPS=all (environment) reads back every clip at 480p instead of the cheapest one.
"""
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from manim.animation.animation import prepare_animation

from conftest import ROOT, build, inputs_for, manifest
from support.pixels import number_problems
from support.shared_builds import shared_build
from scenes.kit.text import lang as language
from scenes.kit.scene.base import ClipScene
from scenes.pipeline.jobs.registry import specs
from scenes.pipeline.run.runner import render_clip
from support.subtitles import decoded_steps, script_problems, srt_problems
from support.video import differences, section_problems, step_end_frames, video_problems

TINY = (256, 144)
CHEAPEST = "weighted-average"      # the shortest real render (tiny 4 s, 480p 12 s on 2 cores)
WANTED = os.environ.get("VIDEO_CLIPS", CHEAPEST)       # "all", or clips separated by commas
READ_BACK = list(specs()) if WANTED == "all" else WANTED.split(",")


@pytest.fixture(scope="module")
def fast(tmp_path_factory):
    """Each clip's fast-path frames at the tiny size, built once for the module: fresh=True in a
    process of their own, as the chapter's renders are (in the suite's long-lived worker the fast
    frames of causal-mask, dropout and multihead came out different after other files' tests had
    run there; not reproduced in a fresh process); else in this
    process, as the renders this module makes itself."""
    cache = {}
    folder = tmp_path_factory.mktemp("fast")

    def frames(clip, lang="zh", fresh=False):
        if not fresh:
            if (clip, lang, fresh) not in cache:
                cache[clip, lang, fresh] = build(clip, frames=True, frame_size=TINY, lang=lang).frames
            return cache[clip, lang, fresh]
        if (clip, lang) not in cache:
            target = folder / f"{clip}.{lang}.npz"
            code = ("import sys, numpy; sys.path[:0] = ['tests', '.']; from conftest import build; "
                    f"f = build({clip!r}, frames=True, frame_size={TINY!r}, lang={lang!r}).frames; "
                    f"numpy.savez_compressed({str(target)!r}, *f)")
            subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True)
            with np.load(target) as saved:
                cache[clip, lang] = [saved[f"arr_{n}"] for n in range(len(saved.files))]
        return cache[clip, lang]
    return frames


def figures(mp4, m, frames):
    """Each step's differences (tests/support/video.py), for the printed line."""
    _, _, kept = step_end_frames(mp4, m)
    rows = [differences(kept[n], f, m["layout"][n - 1], m["frame"]) for n, f in enumerate(frames, 1) if n in kept]
    return "; ".join(f"{n}: mean {r['mean']:.2f} box {r['box']:.1f} far {r['far']:.2%} hue {r['hue']:.1f}"
                     for n, r in enumerate(rows, 1))


@pytest.mark.sampled(4)
@pytest.mark.parametrize("clip", list(specs()))
def test_the_mp4_ends_every_step_on_the_fast_paths_frame(clip, tiny_chapter, fast, capsys):
    """The chapter's tiny render of the book's inputs: each step's last frame before its end
    is the still of that step, the video lasts to the last step's end, and the step videos
    tile it at the steps' ends and end on the same frames."""
    m = manifest(tiny_chapter / f"{clip}.numbers.json")
    frames = fast(clip, fresh=True)
    problems = video_problems(tiny_chapter / f"{clip}.mp4", m, frames)
    problems += section_problems(tiny_chapter / f"{clip}.sections", m, frames)
    with capsys.disabled():
        print(f"\nreal vs fast {clip}: {figures(tiny_chapter / f'{clip}.mp4', m, frames)}")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("clip", READ_BACK)
def test_every_number_reads_back_from_a_real_480p_video(clip, tmp_path, capsys):
    """Quality low (854x480, 15 fps), decoded at each step's end: every number's box shows
    its recorded text (tests/support/pixels.py), and the frame is the fast path's at 854x480."""
    render_clip(clip, inputs_for(clip), quality="low", out=tmp_path)
    m = manifest(tmp_path / f"{clip}.numbers.json")
    fps, _, kept = step_end_frames(tmp_path / f"{clip}.mp4", m)
    assert (fps, sorted(kept)) == (15, list(range(1, len(m["steps"]) + 1)))
    for n, frame in kept.items():
        assert frame.shape[:2] == (480, 854)
        assert number_problems(frame, m["layout"][n - 1], m["frame"]) == []
    frames = shared_build(clip, inputs_for(clip)).frames        # 854x480 (tests/support/shared_builds.py)
    with capsys.disabled():
        print(f"\nreal vs fast {clip} 480p: {figures(tmp_path / f'{clip}.mp4', m, frames)}")
    assert video_problems(tmp_path / f"{clip}.mp4", m, frames) == []


def test_an_english_mp4_ends_every_step_on_the_fast_paths_frame(tmp_path, fast, capsys):
    """The cheapest clip rendered in English at tiny quality ends each step on the English
    fast path's frame; its srt and script are its English steps (tests/support/subtitles.py)."""
    try:
        render_clip(CHEAPEST, inputs_for(CHEAPEST), quality="tiny", out=tmp_path, lang="en", sections=True)
    finally:
        language.use(language.SOURCE)         # render_clip leaves its language in force
    mp4, m = tmp_path / f"{CHEAPEST}.en.mp4", manifest(tmp_path / f"{CHEAPEST}.en.numbers.json")
    assert m["lang"] == "en"
    with capsys.disabled():
        print(f"\nreal vs fast {CHEAPEST} en: {figures(mp4, m, fast(CHEAPEST, 'en'))}")
    assert video_problems(mp4, m, fast(CHEAPEST, "en")) == []
    captions = [s["caption"] for s in m["steps"]]
    assert not any(re.search("[\u4e00-\u9fff]", c) for c in captions), captions
    fps, times = decoded_steps(tmp_path / f"{CHEAPEST}.en.sections")
    problems = srt_problems((tmp_path / f"{CHEAPEST}.en.srt").read_text("utf-8"), captions, times, fps, "en")
    problems += script_problems((tmp_path / f"{CHEAPEST}.en.script.md").read_text("utf-8"), captions, times, fps, "en")
    assert problems == [], "\n".join(problems)


def planted_render(tmp_path, monkeypatch, change):
    """CHEAPEST rendered for real at tiny quality with ClipScene.play changed by
    change(scene, animations, kwargs) -> True (play them) or False (skip) in the real path only."""
    real_play = ClipScene.play

    def play(self, *args, **kwargs):
        if self.fast:
            return real_play(self, *args, **kwargs)
        anims = [prepare_animation(a) for a in args]
        if change(self, anims, kwargs):
            return real_play(self, *anims, **kwargs)
        return self.wait(kwargs.get("run_time") or max(a.run_time for a in anims))   # same length
    monkeypatch.setattr(ClipScene, "play", play)
    render_clip(CHEAPEST, inputs_for(CHEAPEST), quality="tiny", out=tmp_path)
    monkeypatch.undo()
    return tmp_path / f"{CHEAPEST}.mp4", manifest(tmp_path / f"{CHEAPEST}.numbers.json")


def test_animations_that_end_short_are_caught(tmp_path, monkeypatch, fast, capsys):
    """Planted: every animation of the real path stops at 80% of its run (dry runs and stills
    unchanged). The steps whose last frame shows a half-made change are named."""
    def short(scene, anims, kwargs):
        for anim in anims:
            anim.interpolate = lambda alpha, anim=anim: type(anim).interpolate(anim, min(alpha, 0.8))
        return True
    mp4, m = planted_render(tmp_path, monkeypatch, short)
    problems = video_problems(mp4, m, fast(CHEAPEST))
    with capsys.disabled():
        print(f"\nanimations ending at 80%: {figures(mp4, m, fast(CHEAPEST))}\n  " + "\n  ".join(problems))
    named = {int(p.split(":")[0].removeprefix("step ")) for p in problems}
    # each step ends on a drawn change but the last, whose board only fades in (a fade ends whole)
    # as its caption cross-fades, and whose carried copies land whole
    assert named >= set(range(1, len(m["steps"])))


def test_a_dropped_animation_is_caught_by_the_frame(tmp_path, monkeypatch, fast, capsys):
    """Planted: the first animation after step 2's caption is skipped in the real path (a wait
    of its length instead): the video's length and step times stay right, its frame does not."""
    seen = []

    def drop(scene, anims, kwargs):
        seen.append(scene.book.step)
        return seen.count(2) != 2
    mp4, m = planted_render(tmp_path, monkeypatch, drop)
    problems = video_problems(mp4, m, fast(CHEAPEST))
    with capsys.disabled():
        print(f"\na dropped animation: {figures(mp4, m, fast(CHEAPEST))}\n  " + "\n  ".join(problems))
    assert problems and all(p.startswith("step 2:") for p in problems)
    assert not [p for p in problems if "lasts" in p]


def recoloured(image, box, frame):
    """The image with one layout box's ink turned from its colour to another of the same
    brightness (its Cb and Cr negated around 128: yellow to blue, red to cyan)."""
    from support.pixels import to_pixels
    from support.video import chroma, luma
    out = np.asarray(image[:, :, :3], float).copy()
    r0, r1, c0, c1 = to_pixels(box, out.shape[1], out.shape[0], frame["width"], frame["height"])
    y, c = luma(out[r0:r1, c0:c1]), -chroma(out[r0:r1, c0:c1])
    out[r0:r1, c0:c1] = np.stack([y + 1.402 * c[..., 1], y - 0.344136 * c[..., 0] - 0.714136 * c[..., 1],
                                  y + 1.772 * c[..., 0]], axis=2)
    return np.clip(out, 0, 255).astype(np.uint8)


def test_a_text_in_another_colour_at_the_same_brightness_is_caught():
    """Planted in a frame of the fast path: the tracked query's coloured label recoloured to
    another hue of the same brightness. Brightness alone passes it; the colour check names it."""
    from support.video import frame_problems
    built = shared_build(CHEAPEST, inputs_for(CHEAPEST))
    m = built.manifest()
    n, item = next((st["step"], it) for st in m["layout"] for it in st["items"]
                   if it["kind"] == "label" and it.get("role") in ("track", "query"))
    fast = built.frames[n - 1][:, :, :3]
    assert frame_problems(n, fast, fast, m["layout"][n - 1], m["frame"]) == []
    problems = frame_problems(n, recoloured(fast, item["box"], m["frame"]), fast, m["layout"][n - 1], m["frame"])
    assert problems and all("in another colour" in p for p in problems), problems
