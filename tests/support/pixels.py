"""Pixels read back: does the frame show, inside each number's box, the text the manifest records?

For every number and every grid entry in a step's layout, the manifest's text is rasterised alone (Manim's own
camera, the installed number font, white on black, stretched onto the recorded box) and its
ink is correlated with the ink in the same box of the real frame, one character cell at a
time (the number font is monospaced). A covered, clipped, missing or different number fails.
"""

import numpy as np
from manim import BLACK, WHITE, Camera, Text, tempconfig

from scenes.kit.text import style
from scenes.kit.text.glyphs import private_media

MIN_AGREEMENT = 0.9      # correlation of reference and frame ink in each character cell
                         # (the same text reads ~1.0; one digit changed reads 0.6-0.8 at 480p)


def reference(items, width, height, frame_w, frame_h):
    """The numbers alone, rasterised from their manifest text at their recorded boxes."""
    with tempconfig({"pixel_width": width, "pixel_height": height, "frame_width": frame_w,
                     "frame_height": frame_h, "media_dir": private_media()}):
        camera = Camera(background_color=BLACK)
        mobs = []
        for it in items:
            x0, y0, x1, y1 = it["box"]
            t = Text(it["text"], font=style.NUMBER_FONT, font_size=style.NUMBER_SIZE, color=WHITE)
            t.stretch_to_fit_width(x1 - x0).stretch_to_fit_height(y1 - y0).move_to([(x0 + x1) / 2, (y0 + y1) / 2, 0])
            mobs.append(t)
        camera.capture_mobjects(mobs)
        return np.array(camera.pixel_array[:, :, :3], float).mean(axis=2)


def to_pixels(box, width, height, frame_w, frame_h):
    x0, y0, x1, y1 = box
    cols = [int(np.floor((x + frame_w / 2) / frame_w * width)) for x in (x0, x1)]
    rows = [int(np.floor((frame_h / 2 - y) / frame_h * height)) for y in (y1, y0)]
    return max(rows[0] - 1, 0), min(rows[1] + 2, height), max(cols[0] - 1, 0), min(cols[1] + 2, width)


def ink(crop):
    """How far each pixel is from the crop's background (its border's median colour)."""
    border = np.concatenate([crop[0], crop[-1], crop[:, 0], crop[:, -1]])
    return np.linalg.norm(crop - np.median(border, axis=0), axis=2)


def read_back(item):
    """What the check reads: every number, and every grid entry (a grid's texts in its cells,
    ids and fractions, are set in the number font too)."""
    return item["kind"] == "number" or ("row" in item and "grid" in item and item["kind"] == "label")


def number_problems(frame, step_layout, frame_size):
    """The numbers and grid entries of one step whose pixels do not show their recorded text."""
    height, width = frame.shape[:2]
    fw, fh = frame_size["width"], frame_size["height"]
    items = [it for it in step_layout["items"] if read_back(it)]
    if not items:
        return []
    ref = reference(items, width, height, fw, fh)
    out = []
    for it in items:
        r0, r1, c0, c1 = to_pixels(it["box"], width, height, fw, fh)
        if r1 - r0 < 3 or c1 - c0 < 3:
            out.append(f"step {step_layout['step']}: {it['text']!r} has no pixels")
            continue
        want = ref[r0:r1, c0:c1]
        got = ink(np.asarray(frame[r0:r1, c0:c1, :3], float))
        cells = np.array_split(np.arange(c1 - c0), max(len(it["text"]), 1))
        for n, cols in enumerate(cells):
            w, g = want[:, cols].ravel(), got[:, cols].ravel()
            if w.std() < 1:
                continue                      # a blank cell in the reference (a narrow glyph's edge)
            agreement = float(np.corrcoef(w, g)[0, 1]) if g.std() > 1 else 0.0
            if agreement < MIN_AGREEMENT:
                out.append(f"step {step_layout['step']}: {it['label']} {it['text']!r} character {n + 1} "
                           f"does not read back (correlation {agreement:.2f})")
                break
    return out
