"""Render one clip into --out: Manim in a private media dir, then the finished
files moved into place whole (never a half-written final file)."""
import importlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from manim import tempconfig

from scenes.clip_inputs import manifest_inputs

TEX_CACHE = Path(__file__).resolve().parent.parent / ".cache" / "tex"
# clip name -> (module, scene class), in book order
CLIPS = {
    "weighted-average": ("scenes.weighted_average", "WeightedAverage"),
    "score-grid": ("scenes.score_grid", "ScoreGrid"),
    "causal-mask": ("scenes.causal_mask", "CausalMask"),
    "dropout": ("scenes.dropout", "Dropout"),
    "multihead": ("scenes.multihead", "Multihead"),
}
# x264 veryfast at CRF 20: flat colours and text stay crisp (CRF 20 is near visually lossless
# for such frames) while encoding takes about half the time of Manim's default (medium, CRF 23);
# files grow ~15% (bench/README.md).
ENCODER = {"crf": "20", "preset": "veryfast"}
QUALITIES = {  # name -> (width, height, fps)
    "tiny": (256, 144, 5), "low": (854, 480, 15), "medium": (1280, 720, 30),
    "high": (1920, 1080, 60), "4k": (3840, 2160, 60),
}


def available():
    """The clips whose module exists, in book order."""
    out = {}
    for name, (module, cls) in CLIPS.items():
        try:
            out[name] = getattr(importlib.import_module(module), cls)
        except ModuleNotFoundError as err:
            if err.name != module:
                raise
    return out


def srt_time(seconds):
    ms = int(round(seconds * 1000))
    h, ms = divmod(ms, 3600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def srt_text(captions):
    return "".join(f"{n}\n{srt_time(a)} --> {srt_time(b)}\n{text}\n\n"
                   for n, (a, b, text) in enumerate(captions, 1))


def write_atomic(path, data):
    tmp = path.with_name(f".{path.name}.part")
    tmp.write_text(data, encoding="utf-8")
    os.replace(tmp, path)


def manim_settings(work, name, quality, fmt, dry_run=False, sections=False):
    """Manim's settings for one render: its own media dir; a LaTeX cache kept per clip
    (formulas compile once, and two clips never share a folder of temporary TeX files)."""
    width, height, fps = QUALITIES[quality]
    tex = TEX_CACHE / name
    tex.mkdir(parents=True, exist_ok=True)
    return {"media_dir": str(work), "tex_dir": str(tex), "pixel_width": width, "pixel_height": height,
            "frame_rate": fps, "format": "none" if dry_run else fmt, "output_file": name,
            "save_sections": sections and not dry_run and fmt != "png", "verbosity": "ERROR",
            "progress_bar": "none", "disable_caching": True, "video_encoder_options": ENCODER}


def produced(work, name, ext):
    """The finished file Manim wrote for `name` (not a partial, not a section)."""
    found = sorted(p for p in work.rglob(f"*.{ext}") if "partial" not in str(p)
                   and p.stem.startswith(name) and "sections" not in p.parts)
    return found[-1]


def render_clip(clip, inputs, quality="high", fmt="mp4", out="media", dry_run=False,
                step=None, sections=False):
    """Render `clip` with checked `inputs`; return the paths written."""
    scene_cls = available()[clip]
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".render-{clip}-", dir=out))
    try:
        with tempconfig(manim_settings(work, clip, quality, fmt, dry_run, sections)):
            scene = scene_cls(inputs=inputs, stop_after_step=step, skip_animations=dry_run)
            scene.render()
        written = []
        if not dry_run:
            final = out / f"{clip}.{fmt}"
            os.replace(produced(work, clip, fmt), final)
            written.append(final)
            if sections and fmt != "png":
                written += move_sections(work, out, clip)
        manifest = scene.book.manifest(clip, manifest_inputs(inputs))
        manifest["steps"] = [{"caption": t, "start": a, "end": b} for a, b, t in scene.captions]
        write_atomic(out / f"{clip}.numbers.json", json.dumps(manifest, ensure_ascii=False, indent=1) + "\n")
        written.append(out / f"{clip}.numbers.json")
        if not dry_run:
            write_atomic(out / f"{clip}.srt", srt_text(scene.captions))
            written.append(out / f"{clip}.srt")
        return written
    finally:
        shutil.rmtree(work, ignore_errors=True)


def render_title(clip, quality="high", out="media"):
    """The section's title card, as out/.titles/CLIP.mp4."""
    from scenes.title_card import TitleCard
    target = Path(out) / ".titles"
    target.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".title-{clip}-", dir=target))
    try:
        with tempconfig(manim_settings(work, clip, quality, "mp4")):
            TitleCard(available()[clip]).render()
        final = target / f"{clip}.mp4"
        os.replace(produced(work, clip, "mp4"), final)
        return [final]
    finally:
        shutil.rmtree(work, ignore_errors=True)


def move_sections(work, out, clip):
    """--sections: one mp4 per step plus the index JSON, into out/NAME.sections/."""
    index = next(work.rglob("sections/*.json"))
    target = out / f"{clip}.sections"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(index.parent, target)
    return [target]
