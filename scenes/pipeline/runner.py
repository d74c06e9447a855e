"""Render one clip into --out: Manim in a private media dir, then the finished
files moved into place whole (never a half-written final file)."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from manim import config, tempconfig

from scenes.kit import lang as language
from scenes.kit.layout import frame
from scenes.pipeline import holds
from scenes.pipeline.files import srt_text, srt_time, stem, write_atomic  # noqa: F401  (re-exported)
from scenes.pipeline.inputs import InputError, manifest_inputs
from scenes.pipeline.registry import scene as scene_class
from scenes.pipeline.voice import from_folder, script_markdown, spoken

TEX_CACHE = Path(__file__).resolve().parents[2] / ".cache" / "tex"
# x264 veryfast at CRF 20: flat colours and text stay crisp (CRF 20 is near visually lossless
# for such frames) while encoding takes about half the time of Manim's default (medium, CRF 23);
# files grow ~15% (bench/README.md).
ENCODER = {"crf": "20", "preset": "veryfast"}
QUALITIES = {  # name -> (width, height, fps)
    "tiny": (256, 144, 5), "low": (854, 480, 15), "medium": (1280, 720, 30),
    "high": (1920, 1080, 60), "4k": (3840, 2160, 60),
}


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
    """Render `clip` with checked `inputs` in `lang`; return the paths written.

    A --step past the clip's last step, or a missing recording, is bad input (InputError),
    and nothing is written."""
    scene_cls = scene_class(clip)
    language.use(lang)
    name = stem(clip, lang)
    out = Path(out)
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".render-{clip}-", dir=out))
    try:
        try:
            if step is not None and step < 1:
                raise InputError("step", str(step), "steps count from 1")
            # a dry run checks a folder of recordings too (and its timings follow them); espeak only speaks for real
            recordings = recordings_for(clip, inputs, pace, None if dry_run and voice == "espeak" else voice,
                                        work, lang)
        except InputError:
            shutil.rmtree(work, ignore_errors=True)
            if created:
                shutil.rmtree(out, ignore_errors=True)
            raise
        with checked_config(manim_settings(work, clip, quality, fmt, dry_run, sections)):
            scene = scene_cls(inputs=inputs, stop_after_step=step, skip_animations=dry_run, pace=pace,
                              recordings=recordings, renderer=holds.renderer(dry_run))
            scene.render()
            shape = frame()
        keep_tex(work, clip)
        if step is not None and step > len(scene.captions):
            shutil.rmtree(work, ignore_errors=True)
            if created:
                shutil.rmtree(out, ignore_errors=True)
            raise InputError("step", str(step), f"{clip} has {len(scene.captions)} steps: "
                                                f"give 1 to {len(scene.captions)}")
        written = []
        if not dry_run:
            final = out / f"{name}.{fmt}"
            os.replace(produced(work, clip, fmt), final)
            written.append(final)
            if sections and fmt != "png":
                written += move_sections(work, out, name)
        manifest = scene.book.manifest(clip, manifest_inputs(inputs))
        manifest["steps"] = [{"caption": t, "start": a, "end": b, "narration": scene.narration.get(n, "")}
                             for n, (a, b, t) in enumerate(scene.captions, 1)]
        manifest["frame"] = shape
        manifest["layout"] = scene.layout
        manifest["lang"] = lang
        write_atomic(out / f"{name}.numbers.json", json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
        written.append(out / f"{name}.numbers.json")
        spec = scene_cls.spec
        title = spec.heading()
        write_atomic(out / f"{name}.script.md", script_markdown(f"{spec.section} {title}", manifest["steps"]))
        written.append(out / f"{name}.script.md")
        if not dry_run and fmt != "png":
            write_atomic(out / f"{name}.srt", srt_text(scene.captions))
            written.append(out / f"{name}.srt")
        if sections and not dry_run and fmt != "png":
            from scenes.pipeline.presenter import clip_steps, write_page
            part = {"section": spec.section, "title": title, "steps": clip_steps(out, name, spec.section, title)}
            written.append(write_page(out, name, f"{spec.section} {title}", [part], lang=lang,
                                      one_file=one_file))
        return written
    finally:
        shutil.rmtree(work, ignore_errors=True)


def render_title(clip: str, quality: str = "high", out: str | Path = "media",
                 lang: str = language.SOURCE) -> list[Path]:
    """The section's title card, as out/.titles/CLIP.mp4 with its manifest CLIP.numbers.json
    (CLIP.en.mp4 in English)."""
    from scenes.pipeline.title_card import TitleCard
    language.use(lang)
    name = stem(clip, lang)
    target = Path(out) / ".titles"
    target.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".title-{clip}-", dir=target))
    try:
        with checked_config(manim_settings(work, clip, quality, "mp4")):
            card = TitleCard(scene_class(clip).spec, renderer=holds.renderer())
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
        shutil.rmtree(work, ignore_errors=True)


def move_sections(work: Path, out: Path, clip: str) -> list[Path]:
    """--sections: one mp4 per step plus the index JSON, into out/NAME.sections/."""
    index = next(work.rglob("sections/*.json"))
    target = out / f"{clip}.sections"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(index.parent, target)
    return [target]
