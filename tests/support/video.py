"""The video users get: a real rendered mp4, decoded, against the manifest and the fast path.

    video_problems(mp4_path, manifest, fast_frames) -> list[str]
        mp4_path     a clip's rendered NAME.mp4 (any quality)
        manifest     its NAME.numbers.json, loaded (steps with start/end, frame, layout)
        fast_frames  each step's last frame from the skip-animations path at the mp4's size
                     (conftest.build(clip, frames=True, frame_size=(w, h)).frames)
        The problems, one line each naming the step: a video whose length is not the last
        step's end (within one frame), or a step whose last frame (the one before its end)
        differs from the fast path's frame of that step: over the whole frame, inside one
        box of the step's layout (a number, label, caption, title or mark), or in a few
        pixels far off.

    section_problems(folder, manifest, fast_frames=None) -> list[str]
        The step videos NAME.sections/: one per step, each lasting from the previous step's end
        to its own (within one frame), and each ending on the fast path's frame (the presenter
        page holds it).

    step_end_frames(mp4_path, manifest) -> (fps, frame count, {step: RGB frame})
    differences(real, fast, step_layout, frame) -> the figures compared with the tolerances
    hue_difference(real, fast, pixel_box) -> the colour of one box's ink, real against fast

The encode is lossy (x264 at CRF 20, yuv420p: colour at half resolution), so frames are
compared by brightness, which the encoder keeps at full resolution, with tolerances above
what the book's clips measure at 256x144 and 854x480 and well below what an animation stopped
at 80% or a dropped animation shows (tests/pipeline/test_video.py plants both). Colour is
compared too, where it means something: inside each box of the layout, the mean colour (the
two chroma planes, Cb and Cr) of the pixels the fast path inks there, so a yellow text drawn
blue, or a red cell drawn on its neighbour, is named even where its brightness is close.
"""
import json
from pathlib import Path

import av
import numpy as np

from support.pixels import to_pixels

# Brightness (luma) differences, 0-255, measured on the book's clips at 256x144 and 854x480:
MEAN_TOLERANCE = 3.0      # mean over the whole frame (the clips: 1.1-1.4, the YUV round trip)
BOX_TOLERANCE = 6.0       # mean inside any text's box (the clips: at most 2.9)
FAR = 64                  # a pixel this far off is not the encoder's blur (the clips: at most 46)
FAR_TOLERANCE = 0.0002    # share of such pixels in the frame (the clips: none)
HUE_TOLERANCE = 16.0      # chroma (Cb, Cr; 0-255) of a box's ink, real against fast (the clips: at
                          # most 7.1 at 256x144 and 7.4 at 854x480, weighted-average; yellow drawn white ~60)
INK = 40                  # a pixel this much brighter or darker than its box's border is ink
INKED = 6                 # a box needs this many inked pixels for its colour to be compared


def step_end_frames(mp4_path, manifest):
    """Decode the video once; keep, for every step, the last frame shown before its end."""
    ends = [s["end"] for s in manifest["steps"]]
    with av.open(str(mp4_path)) as box:
        stream = box.streams.video[0]
        fps = float(stream.guessed_rate)          # the nominal rate (the average may round)
        wanted = {round(end * fps) - 1: n for n, end in enumerate(ends, 1)}
        kept, count = {}, 0
        for frame in box.decode(stream):
            index = round(frame.time * fps)
            count = max(count, index + 1)
            if index in wanted:
                kept[wanted[index]] = frame.to_ndarray(format="rgb24")
    return fps, count, kept


def luma(image):
    """The brightness the encoder keeps at full resolution (BT.601 Y; yuv420p halves the
    colour planes, so coloured edges blur by design)."""
    return np.asarray(image[:, :, :3], float) @ [0.299, 0.587, 0.114]


def chroma(image):
    """The colour the encoder keeps at half resolution: BT.601 Cb and Cr, 0-255 around 128."""
    rgb = np.asarray(image[:, :, :3], float)
    return np.stack([rgb @ [-0.168736, -0.331264, 0.5], rgb @ [0.5, -0.418688, -0.081312]], axis=2)


def _half(image):
    """Each 2x2 block's mean, as yuv420p keeps colour (odd edges dropped)."""
    h, w = image.shape[0] // 2 * 2, image.shape[1] // 2 * 2
    return image[:h, :w].reshape(h // 2, 2, w // 2, 2, -1).mean(axis=(1, 3))


def hue_difference(real, fast, box):
    """How far the colour of the fast frame's ink inside one box (pixel rows r0:r1, columns
    c0:c1) is from the real frame's there: the distance of their mean (Cb, Cr) over the 2x2
    blocks that hold ink, both taken at the half resolution the encoder keeps colour at. None
    where the box has too little ink to say."""
    r0, r1, c0, c1 = box
    r0, c0 = r0 - r0 % 2, c0 - c0 % 2
    bright = luma(fast[r0:r1, c0:c1])
    border = np.concatenate([bright[0], bright[-1], bright[:, 0], bright[:, -1]])
    inked = np.abs(bright - np.median(border)) > INK
    if inked.sum() < INKED:
        return None
    blocks = _half(inked[..., None].astype(float))[..., 0] > 0
    if not blocks.any():
        return None
    want = _half(chroma(fast[r0:r1, c0:c1]))[blocks].mean(axis=0)
    got = _half(chroma(real[r0:r1, c0:c1]))[blocks].mean(axis=0)
    return float(np.linalg.norm(want - got))


def differences(real, fast, step_layout, frame):
    """Mean absolute difference of brightness over the frame and inside the worst box of the
    step's layout (every number, label, caption, title and mark), the share of pixels that are
    far off, and the worst box's difference of colour (hue_difference)."""
    diff = np.abs(luma(real) - luma(fast))
    height, width = diff.shape[:2]
    boxes, hues = [], []
    for it in step_layout["items"]:
        r0, r1, c0, c1 = to_pixels(it["box"], width, height, frame["width"], frame["height"])
        if r1 > r0 and c1 > c0:
            boxes.append((float(diff[r0:r1, c0:c1].mean()), it))
            hue = hue_difference(real, fast, (r0, r1, c0, c1))
            if hue is not None:
                hues.append((hue, it))
    worst = max(boxes, key=lambda b: b[0], default=(0.0, None))
    worst_hue = max(hues, key=lambda b: b[0], default=(0.0, None))
    return {"mean": float(diff.mean()), "box": worst[0], "box_item": worst[1],
            "far": float((diff > FAR).mean()), "hue": worst_hue[0], "hue_item": worst_hue[1]}


def _what(it):
    what = it["kind"] if it["label"] == it["text"] else f"{it['kind']} {it['label']}"
    return what + (f" {it['text']!r}" if it["text"] else "")


def frame_problems(n, real, fast, step_layout, frame, where="the mp4"):
    d = differences(real, fast, step_layout, frame)
    out = []
    if d["mean"] > MEAN_TOLERANCE or d["far"] > FAR_TOLERANCE:
        out.append(f"step {n}: {where}'s last frame differs from the fast path's "
                   f"(mean {d['mean']:.2f}, {d['far']:.2%} of pixels far off)")
    if d["box"] > BOX_TOLERANCE:
        out.append(f"step {n}: {where} shows the {_what(d['box_item'])} differently from the fast path "
                   f"(mean {d['box']:.1f} in its box)")
    if d["hue"] > HUE_TOLERANCE:
        out.append(f"step {n}: {where} shows the {_what(d['hue_item'])} in another colour than the fast "
                   f"path (chroma {d['hue']:.1f} apart in its box)")
    return out


def video_problems(mp4_path, manifest, fast_frames):
    """What the real video shows that the manifest and the fast path do not (see the top)."""
    steps = manifest["steps"]
    fps, count, kept = step_end_frames(mp4_path, manifest)
    out = []
    if abs(count / fps - steps[-1]["end"]) > 1 / fps + 1e-6:
        out.append(f"step {len(steps)}: the video lasts {count / fps:.2f} s, the last step ends at "
                   f"{steps[-1]['end']:.2f} s")
    if len(fast_frames) != len(steps):
        out.append(f"the fast path has {len(fast_frames)} steps, the manifest {len(steps)}")
    for n, (fast, layout) in enumerate(zip(fast_frames, manifest["layout"]), 1):
        if n not in kept:
            out.append(f"step {n}: no frame before its end at {steps[n - 1]['end']:.2f} s")
        elif kept[n].shape[:2] != fast.shape[:2]:
            out.append(f"step {n}: the video is {kept[n].shape[1]}x{kept[n].shape[0]}, "
                       f"the fast path {fast.shape[1]}x{fast.shape[0]}")
        else:
            out += frame_problems(n, kept[n], fast, layout, manifest["frame"])
    return out


def last_frame(path):
    """(frame count, fps, the last frame) of a video."""
    with av.open(str(path)) as box:
        stream = box.streams.video[0]
        frames = list(box.decode(stream))
        return len(frames), float(stream.guessed_rate), frames[-1].to_ndarray(format="rgb24")


def section_problems(folder, manifest, fast_frames=None):
    """The step videos tile the mp4 at the steps' ends and end on each step's frame."""
    folder = Path(folder)
    index = json.loads(next(folder.glob("*.json")).read_text("utf-8"))
    videos = [s for s in index if s["name"].startswith("step-")]
    steps = manifest["steps"]
    if len(videos) != len(steps):
        return [f"{len(videos)} step videos for {len(steps)} steps"]
    out, previous = [], 0.0
    for n, (section, step) in enumerate(zip(videos, steps), 1):
        count, fps, last = last_frame(folder / section["video"])
        if abs(count / fps - (step["end"] - previous)) > 1 / fps + 1e-6:
            out.append(f"step {n}: its video lasts {count / fps:.2f} s, the step "
                       f"{step['end'] - previous:.2f} s (from {previous:.2f} to {step['end']:.2f})")
        if fast_frames is not None:
            out += frame_problems(n, last, fast_frames[n - 1], manifest["layout"][n - 1],
                                  manifest["frame"], where="its step video")
        previous = step["end"]
    return out
