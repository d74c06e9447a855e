"""A voice for each step: the lecturer's recordings (--voice DIR) or a draft voice spoken
offline by espeak-ng (--voice espeak), and the script a lecturer reads from (NAME.script.md).

Recordings live in DIR/NAME/01.wav, 02.m4a, ... (any format PyAV decodes), one per step.
A missing or unreadable recording is bad input (InputError naming the file).
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import av

from scenes.kit.text.lang import tr
from scenes.pipeline.jobs.inputs import InputError

ESPEAK_VOICES = {"zh": "cmn", "en": "en-us"}


def audio_seconds(path: Path, limit: float | None = None) -> float:
    """The length of an audio file, from its decoded samples; past `limit` seconds (by its
    container's header, or once that much is decoded), the length found so far."""
    try:
        with av.open(str(path)) as box:
            if not box.streams.audio:
                raise InputError("voice", str(path), f"{path.name} has no audio stream")
            if limit is not None and box.duration is not None and box.duration / av.time_base > limit:
                return float(box.duration / av.time_base)
            samples = rate = 0
            for frame in box.decode(audio=0):
                samples += frame.samples
                rate = frame.sample_rate
                if limit is not None and samples > limit * rate:
                    break
    except InputError:
        raise
    except Exception as err:   # PyAV's errors for a file it cannot read
        raise InputError("voice", str(path), f"{path.name} is not a readable audio file "
                                             f"({type(err).__name__})") from err
    if not samples or not rate:
        raise InputError("voice", str(path), f"{path.name} holds no sound")
    return samples / rate


def from_folder(folder: Path, clip: str, steps: int) -> dict[int, tuple[str, float]]:
    """One recording per step: FOLDER/CLIP/01.*, 02.*, ..."""
    if not folder.is_dir():
        raise InputError("voice", str(folder), "is neither 'espeak' nor a folder of recordings")
    found = {}
    for n in range(1, steps + 1):
        matches = sorted(p for p in (folder / clip).glob(f"{n:02d}.*") if p.is_file())
        if len(matches) != 1:
            want = f"{clip}/{n:02d}.wav"
            rule = (f"{want} is missing" if not matches
                    else f"{clip}/{n:02d} is given twice (" + ", ".join(p.name for p in matches) + ")")
            raise InputError("voice", str(folder), f"{rule}: {clip} needs one recording per step, "
                                                   f"01 to {steps:02d} (any format PyAV decodes)")
        found[n] = (str(matches[0]), audio_seconds(matches[0]))
    return found


def spoken(texts: dict[int, str], work: Path, lang: str = "zh") -> dict[int, tuple[str, float]]:
    """Each step's narration spoken by espeak-ng into WORK/NN.wav (offline, for timing drafts)."""
    if shutil.which("espeak-ng") is None:
        raise RuntimeError("espeak-ng is not installed: run `bash run.sh setup`")
    work.mkdir(parents=True, exist_ok=True)
    found = {}
    for n, text in texts.items():
        path = work / f"{n:02d}.wav"
        subprocess.run(["espeak-ng", "-v", ESPEAK_VOICES[lang], "-s", "150", "-w", str(path), text],
                       check=True, capture_output=True)
        found[n] = (str(path), audio_seconds(path))
    return found


def script_markdown(title: str, steps: list[dict]) -> str:
    """The script a lecturer reads and records from: step, caption, narration, planned duration."""
    lines, caption = [f"# {title}", ""], tr("字幕")
    for n, st in enumerate(steps, 1):
        lines += [f"## {n:02d} · {st['end'] - st['start']:.1f} s", "", f"**{caption}** {st['caption']}", "",
                  st.get("narration") or st["caption"], ""]
    return "\n".join(lines)
