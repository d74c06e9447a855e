"""Render one job (scenes/pipeline/jobs/job.py) into its folder: Manim in a private work folder,
then the finished files moved into place whole (never a half-written final file). What a render
that died left behind is removed by the next one into that folder (scenes/pipeline/jobs/leftovers.py)."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from manim import config, tempconfig

from scenes.kit.text import lang as language
from scenes.kit.text.layout import frame
from scenes.pipeline.video import from_step, holds
from scenes.pipeline.jobs.files import signals_held, srt_text, srt_time, stem, write_atomic  # noqa: F401  (re-exported)
from scenes.pipeline.jobs.inputs import InputError, manifest_inputs
from scenes.pipeline.jobs.job import QUALITIES, RenderJob  # noqa: F401  (QUALITIES: re-exported)
from scenes.pipeline.jobs.leftovers import mark, sweep, work_dir
from scenes.pipeline.jobs.registry import scene as scene_class
from scenes.pipeline.video.voice import from_folder, script_markdown, spoken

TEX_CACHE = Path(__file__).resolve().parents[3] / ".cache" / "tex"
# x264 veryfast at CRF 20: flat colours and text stay crisp (CRF 20 is near visually lossless
# for such frames) while encoding takes about half the time of Manim's default (medium, CRF 23);
# files grow ~15% (bench/README.md).
ENCODER = {"crf": "20", "preset": "veryfast"}


def manim_settings(work: Path, name: str, quality: str, fmt: str, dry_run: bool = False,
                   sections: bool = False) -> dict:
    """Manim's settings for one render: its own media dir, and its own TeX folder filled
    from the shared cache of finished formulas (see keep_tex)."""
    width, height, fps = QUALITIES[quality]
    tex = work / "tex"
    tex.mkdir(parents=True, exist_ok=True)
    for done in (TEX_CACHE / name).glob("*.svg"):
        try:
            os.link(done, tex / done.name)
        except OSError:
            shutil.copy(done, tex / done.name)
    return {"media_dir": str(work), "tex_dir": str(tex), "pixel_width": width, "pixel_height": height,
            "frame_rate": fps, "format": "none" if dry_run else fmt, "output_file": name,
            "save_sections": sections and not dry_run and fmt != "png", "verbosity": "ERROR",
            "progress_bar": "none", "disable_caching": True, "video_encoder_options": ENCODER}


def keep_tex(work: Path, name: str) -> None:
    """Offer the render's finished formulas to the shared cache. Each render compiles in its
    own folder, and a file enters the cache whole (a link to a finished file), so two renders
    of one clip at once never read each other's half-written SVG."""
    shared = TEX_CACHE / name
    shared.mkdir(parents=True, exist_ok=True)
    for done in (work / "tex").glob("*.svg"):
        if not (shared / done.name).exists():
            part = shared / f".{os.getpid()}-{done.name}"
            shutil.copy(done, part)
            os.replace(part, shared / done.name)


def checked_config(settings: dict) -> Any:
    """tempconfig(settings), refusing any key Manim does not know (it would drop it silently)."""
    unknown = sorted(set(settings) - set(config._d))
    if unknown:
        raise KeyError(f"Manim has no setting {', '.join(unknown)}")
    return tempconfig(settings)


def produced(work: Path, name: str, ext: str) -> Path:
    """The finished file Manim wrote for `name` (not a partial, not a section)."""
    found = sorted(p for p in work.rglob(f"*.{ext}") if "partial" not in str(p)
                   and p.stem.startswith(name) and "sections" not in p.parts)
    return found[-1]


def plan(clip: str, inputs: dict, pace: str, work: Path) -> Any:
    """The clip built without frames: its steps, captions and narration (for a voice)."""
    with checked_config(manim_settings(work, clip, "tiny", "png", dry_run=True)):
        scene = scene_class(clip)(inputs=inputs, pace=pace, skip_animations=True)
        scene.render()
    keep_tex(work, clip)
    return scene


def recordings_for(clip: str, inputs: dict, pace: str, voice: str | None, work: Path,
                   lang: str = "zh") -> dict[int, tuple[str, float]]:
    """Step -> (audio file, seconds) for --voice espeak or --voice DIR; {} without a voice."""
    if not voice:
        return {}
    planned = plan(clip, inputs, pace, work / "plan")
    if voice == "espeak":
        texts = {n: planned.narration.get(n) or cap for n, (_, _, cap) in enumerate(planned.captions, 1)}
        return spoken(texts, work / "voice", lang)
    return from_folder(Path(voice), clip, len(planned.captions))


def render_clip(clip: str, inputs: dict, quality: str = "high", fmt: str = "mp4", out: str | Path = "media",
                dry_run: bool = False, step: int | None = None, sections: bool = False,
                pace: str = "normal", voice: str | None = None, one_file: bool = False,
                lang: str = language.SOURCE) -> list[Path]:
    """render(RenderJob(...)) in the positional form older callers (the lab's worker) use."""
    return render(RenderJob(clip=clip, inputs=inputs, quality=quality, format=fmt, out=Path(out),
                            dry_run=dry_run, step=step, sections=sections, pace=pace, voice=voice,
                            one_file=one_file, lang=lang))


def render(job: RenderJob, on_play: Any = None) -> list[Path]:
    """Render one job; return the paths written. The job's language is in force while its scene
    is built and the one before it afterwards.

    A --step past the clip's last step, or a missing recording, is bad input (InputError),
    and nothing is written. on_play(scene): called as each play begins in a step job (the
    scene's stop_after_step may be lowered there: steps.py's giving away)."""
    scene_cls = scene_class(job.clip)
    out = job.out
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    sweep(out)
    work = work_dir(out, "render", job.clip)
    before = language.current
    language.use(job.lang)
    try:
        try:
            # a dry run checks a folder of recordings too (and its timings follow them); espeak only speaks for real
            voice = None if job.dry_run and job.voice == "espeak" else job.voice
            recordings = recordings_for(job.clip, dict(job.inputs), job.pace, voice, work, job.lang)
        except InputError:
            discard(out, created)
            raise
        with checked_config(manim_settings(work, job.clip, job.quality, job.format, job.dry_run, job.sections)):
            drawn = from_step.renderer(job.first_step, on_play) if job.first_step else holds.renderer(job.dry_run)
            scene = scene_cls(inputs=dict(job.inputs), stop_after_step=job.step, skip_animations=job.dry_run,
                              pace=job.pace, recordings=recordings, renderer=drawn)
            with holds.encoders_released():
                scene.render()
            shape = frame()
        keep_tex(work, job.clip)
        steps = len(scene.captions)
        if scene.stop_after_step is not None and scene.stop_after_step > steps:
            shutil.rmtree(work, ignore_errors=True)
            discard(out, created)
            raise InputError("step", str(job.step), f"{job.clip} has {steps} steps: give 1 to {steps}")
        with signals_held():
            return write_outputs(job, scene, shape, work)
    finally:
        language.use(before)
        shutil.rmtree(work, ignore_errors=True)


def discard(out: Path, created: bool) -> None:
    """Bad input found on the way: the folder goes if this render made it (nothing written)."""
    if created:
        shutil.rmtree(out, ignore_errors=True)


def write_outputs(job: RenderJob, scene: Any, shape: dict, work: Path) -> list[Path]:
    """Move the finished video into place whole, then write the manifest, script, srt and page
    (called with Ctrl-C held: the files are replaced as one set)."""
    out, name, written = job.out, job.name, []
    if not job.dry_run:
        final = out / f"{name}.{job.format}"
        os.replace(produced(work, job.clip, job.format), final)
        written.append(final)
        if job.sections and job.videos:
            written += move_sections(work, out, name)
    manifest = scene.book.manifest(job.clip, manifest_inputs(dict(job.inputs)))
    manifest["steps"] = [{"caption": t, "start": a, "end": b, "narration": scene.narration.get(n, "")}
                         for n, (a, b, t) in enumerate(scene.captions, 1)]
    manifest["frame"] = shape
    manifest["layout"] = scene.layout
    manifest["lang"] = job.lang
    write_atomic(out / f"{name}.numbers.json", json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
    written.append(out / f"{name}.numbers.json")
    spec = type(scene).spec
    title = spec.heading()
    write_atomic(out / f"{name}.script.md", script_markdown(f"{spec.section} {title}", manifest["steps"]))
    written.append(out / f"{name}.script.md")
    if job.videos:
        write_atomic(out / f"{name}.srt", srt_text(scene.captions))
        written.append(out / f"{name}.srt")
    if job.sections and job.videos and not job.first_step:     # a step job: the page is the join's
        from scenes.pipeline.present.presenter import clip_steps, write_page
        part = {"section": spec.section, "title": title, "steps": clip_steps(out, name, spec.section, title)}
        written.append(write_page(out, name, f"{spec.section} {title}", [part], lang=job.lang,
                                  one_file=job.one_file))
    return written


def render_title(clip: str, quality: str = "high", out: str | Path = "media",
                 lang: str = language.SOURCE) -> list[Path]:
    """The section's title card, as out/.titles/CLIP.mp4 with its manifest CLIP.numbers.json
    (CLIP.en.mp4 in English)."""
    from scenes.pipeline.video.title_card import TitleCard
    name = stem(clip, lang)
    target = Path(out) / ".titles"
    target.mkdir(parents=True, exist_ok=True)
    sweep(target)
    work = work_dir(target, "title", clip)
    before = language.current
    language.use(lang)
    try:
        with checked_config(manim_settings(work, clip, quality, "mp4")):
            card = TitleCard(scene_class(clip).spec, renderer=holds.renderer())
            with holds.encoders_released():
                card.render()
            shape = frame()
        keep_tex(work, clip)
        final = target / f"{name}.mp4"
        os.replace(produced(work, clip, "mp4"), final)
        manifest = card.book.manifest(f"title-{clip}", {"clip": clip})
        manifest["frame"], manifest["layout"], manifest["lang"] = shape, card.layout, lang
        write_atomic(target / f"{name}.numbers.json", json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
        return [final, target / f"{name}.numbers.json"]
    finally:
        language.use(before)
        shutil.rmtree(work, ignore_errors=True)


def move_sections(work: Path, out: Path, clip: str) -> list[Path]:
    """--sections: one mp4 per step plus the index JSON, into out/NAME.sections/, whole: copied
    beside it under a hidden name, then swapped in (the old folder removed after the swap)."""
    index = next(work.rglob("sections/*.json"))
    target = out / f"{clip}.sections"
    mine = mark()
    new, old = out / f".{clip}.sections{mine}new", out / f".{clip}.sections{mine}old"
    shutil.rmtree(new, ignore_errors=True)
    shutil.copytree(index.parent, new)
    if target.exists():
        os.replace(target, old)
    os.replace(new, target)
    shutil.rmtree(old, ignore_errors=True)
    return [target]
