"""A contact sheet of a real video: a row of frames across each step boundary, every DT seconds
(0.4 s before the boundary to 1.4 s after, by default), each frame labelled with its time, to look
at motion between steps (the guide: "decode the real mp4 into a contact sheet").

    .venv/bin/python tests/support/contact_sheet.py CLIP.mp4 CLIP.numbers.json OUT.png [--dt 0.2]
"""
import argparse
import json

import av
from PIL import Image, ImageDraw


def wanted(manifest, before, after, dt):
    """[(step, [times])]: for each step after the first, the times around its start."""
    rows = []
    for n, s in enumerate(manifest["steps"][1:], start=2):
        k0, k1 = round(before / dt), round(after / dt)
        rows.append((n, [round(s["start"] + k * dt, 3) for k in range(-k0, k1 + 1)]))
    return rows


def frames_at(mp4, times):
    """time -> the first decoded frame at or after it (RGB arrays)."""
    todo, got = sorted(set(times)), {}
    with av.open(str(mp4)) as box:
        for frame in box.decode(box.streams.video[0]):
            t = float(frame.time)
            while todo and t >= todo[0] - 1e-6:
                got[todo.pop(0)] = frame.to_ndarray(format="rgb24")
            if not todo:
                break
    return got


def sheet(mp4, manifest, out, before=0.4, after=1.4, dt=0.2, width=320):
    rows = wanted(manifest, before, after, dt)
    got = frames_at(mp4, [t for _, ts in rows for t in ts])
    h, w = next(iter(got.values())).shape[:2]
    tw, th, band = width, round(width * h / w), 16
    cols = max(len(ts) for _, ts in rows)
    image = Image.new("RGB", (cols * tw, len(rows) * (th + band)), "white")
    draw = ImageDraw.Draw(image)
    for r, (step, times) in enumerate(rows):
        for c, t in enumerate(times):
            y = r * (th + band)
            draw.text((c * tw + 3, y + 2), f"step {step}  {t:.1f} s" if c == 0 else f"{t:.1f}", fill="black")
            if t in got:
                image.paste(Image.fromarray(got[t]).resize((tw, th)), (c * tw, y + band))
    image.save(out)
    return image.size


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mp4")
    parser.add_argument("manifest")
    parser.add_argument("out")
    parser.add_argument("--before", type=float, default=0.4)
    parser.add_argument("--after", type=float, default=1.4)
    parser.add_argument("--dt", type=float, default=0.2)
    parser.add_argument("--width", type=int, default=320, help="each frame's width in the sheet, pixels")
    args = parser.parse_args()
    manifest = json.loads(open(args.manifest, encoding="utf-8").read())
    print(args.out, sheet(args.mp4, manifest, args.out, args.before, args.after, args.dt, args.width))


if __name__ == "__main__":
    main()
