"""Each step's last frame drawn again for print: the clip built without animations (the frames a
still of each step shows, as the videos end them) in a theme and at PRINT_SIZE pixels, in a
process of its own so that the theme is in force before any clip module is read
(scenes/kit/text/style.py, THEME_VARIABLE). Kept in NAME.sections/print-THEME/ (gone with the
folder when the clip is rendered again) and reused while the manifest, the inputs and the size
are the ones they were drawn from.

    python -m scenes.pipeline.present.frames JOB      # JSON: {clip, raw, lang, folder, size}
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from scenes.kit.text import style
from scenes.pipeline.jobs.files import NEW_FILE_MODE
from scenes.pipeline.jobs.leftovers import work_dir

PRINT_SIZE = (2560, 1440)      # 361 dpi across a 180 mm page, 500 dpi in a 130 mm grid frame
ROOT = Path(__file__).resolve().parents[3]
TEX_CACHE = ROOT / ".cache" / "tex"


def inputs_of(out: Path, clip: str, manifest: dict, given: dict | None = None) -> dict:
    """The raw inputs `manifest` was rendered from: `given` (the command's own), the course's
    preset file (OUT/.course/CLIP.json), or the book's, the first whose checked inputs are the
    manifest's."""
    from scenes.pipeline.jobs.inputs import check, manifest_inputs, raw_inputs
    course = out / ".course" / f"{clip}.json"
    candidates = [given] if given else []
    if course.is_file():
        candidates.append(json.loads(course.read_text("utf-8"))["inputs"])
    candidates.append(raw_inputs(clip))
    for raw in candidates:
        if json.loads(json.dumps(manifest_inputs(check(clip, raw)))) == manifest["inputs"]:
            return raw
    raise RuntimeError(f"{clip}'s manifest holds inputs other than the book's or its course's: "
                       "render it with --deck to make its handout")


def print_frames(out: Path, name: str, clip: str, lang: str, theme: str, given: dict | None = None) -> list[Path]:
    """The steps' frames of OUT/NAME in `theme` at PRINT_SIZE, one PNG a step, in step order."""
    manifest_file = out / f"{name}.numbers.json"
    manifest = json.loads(manifest_file.read_text("utf-8"))
    raw = inputs_of(out, clip, manifest, given)
    folder = out / f"{name}.sections" / f"print-{theme}"
    key = hashlib.sha256(manifest_file.read_bytes() + json.dumps([raw, lang, theme, PRINT_SIZE],
                                                                 sort_keys=True).encode()).hexdigest()
    wanted = [folder / f"step-{n}.png" for n in range(1, len(manifest["steps"]) + 1)]
    if (folder / "key.txt").is_file() and (folder / "key.txt").read_text() == key and all(p.is_file() for p in wanted):
        return wanted
    work = work_dir(out, "print", clip)            # swept by the next render if this process dies
    os.chmod(work, NEW_FILE_MODE | 0o111)          # a folder's mode under the umask, not mkdtemp's 0700
    try:
        job = work / "job.txt"
        job.write_text(json.dumps({"clip": clip, "raw": raw, "lang": lang, "folder": str(work),
                                   "size": list(PRINT_SIZE)}), "utf-8")
        env = dict(os.environ, **{style.THEME_VARIABLE: theme})
        done = subprocess.run([sys.executable, "-m", "scenes.pipeline.present.frames", str(job)], cwd=ROOT,
                              env=env, capture_output=True, text=True)
        if done.returncode:
            raise RuntimeError(f"{name}'s frames for print: {(done.stderr.strip().splitlines() or ['no message'])[-1]}")
        drawn = json.loads((work / "captions.txt").read_text("utf-8"))
        if drawn != [st["caption"] for st in manifest["steps"]]:
            raise RuntimeError(f"{name}'s frames for print do not show its rendered steps (their captions differ)")
        (work / "key.txt").write_text(key)
        (work / "job.txt").unlink()
        (work / "captions.txt").unlink()
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(work, folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return wanted


def draw(job: dict) -> None:
    """In the child: build the clip with each step's last frame kept, write them and the captions."""
    from manim import tempconfig
    from PIL import Image
    from scenes.kit.text import lang as language
    from scenes.kit.text.glyphs import private_media
    from scenes.pipeline.jobs.inputs import check
    from scenes.pipeline.jobs.registry import scene
    folder, clip = Path(job["folder"]), job["clip"]
    tex = Path(private_media()) / "tex"
    tex.mkdir()
    for done in (TEX_CACHE / clip).glob("*.svg"):       # the formulas renders have made, not made again
        shutil.copy(done, tex / done.name)
    language.use(job["lang"])
    settings = {"format": "none", "disable_caching": True, "media_dir": str(tex.parent), "tex_dir": str(tex),
                "verbosity": "ERROR", "progress_bar": "none", "pixel_width": job["size"][0],
                "pixel_height": job["size"][1]}
    with tempconfig(settings):
        built = scene(clip)(inputs=check(clip, job["raw"]), skip_animations=True)
        built.capture_frames = True
        built.render()
    for n, frame in enumerate(built.frames, 1):
        Image.fromarray(frame[:, :, :3]).save(folder / f"step-{n}.png", optimize=True)
    (folder / "captions.txt").write_text(json.dumps([c for _, _, c in built.captions], ensure_ascii=False), "utf-8")


if __name__ == "__main__":
    draw(json.loads(Path(sys.argv[1]).read_text("utf-8")))
