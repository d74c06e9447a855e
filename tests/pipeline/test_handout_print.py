"""The handout on paper: its frames drawn again for print in the light theme (pdf:dark keeps the
video's), at 300 dpi or more at the size they are printed (poppler's pdfimages says), the grid's
smallest number at 7 pt or more (its box in the layout record, at the printed frame's scale, over
the number font's digit height read from the font file), no word of the grid set under 7 pt, and
every caption still text that a reader finds, the grid's under its own frame (pdftotext, frame by
frame). Planted: frames at 1080p (271 dpi), the old grid (92 mm frames) and the grid printing the
next step's caption under each frame are caught."""
import json
import re
import shutil
import subprocess
from dataclasses import replace

import numpy as np
import pytest
from fontTools.pens.boundsPen import BoundsPen
from fontTools.ttLib import TTFont
from PIL import Image
from pypdf import PdfReader

from conftest import cli
from scenes.kit.text import style
from scenes.pipeline.present import frames as print_frames
from scenes.pipeline.present import pdf as deck_pdf
from scenes.pipeline.present.decks import write as write_deck

CLIP = "weighted-average"        # the cheapest clip to draw again
LEAST_DPI, LEAST_PT = 300, 7
NUMBER = re.compile("[\u2212+-]?[0-9][0-9.,]*")


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """CLIP rendered once at 144p5 with its step videos."""
    folder = tmp_path_factory.mktemp("tiny")
    code, out = cli(CLIP, "--quality", "tiny", "--sections", "--out", folder)
    assert code == 0, out
    return folder


@pytest.fixture
def rendered(tiny, tmp_path):
    """The render in a folder of the test's own (its print frames are drawn there)."""
    for name in (f"{CLIP}.numbers.json", f"{CLIP}.sections"):
        (shutil.copytree if (tiny / name).is_dir() else shutil.copy)(tiny / name, tmp_path / name)
    return tmp_path


def images(pdf):
    """(page, width px, height px, x dpi, y dpi) of every image, as poppler places it."""
    listed = subprocess.run(["pdfimages", "-list", str(pdf)], capture_output=True, text=True, check=True,
                            timeout=60).stdout.splitlines()[2:]
    return [(int(f[0]), int(f[3]), int(f[4]), float(f[12]), float(f[13])) for f in (line.split() for line in listed)]


def dpi_problems(pdf):
    return [f"page {page}: a frame of {w} x {h} px prints at {min(x, y):.0f} dpi"
            for page, w, h, x, y in images(pdf) if min(x, y) < LEAST_DPI]


def digit_height():
    """A digit's height per em in the number font, from its file."""
    found = subprocess.run(["fc-match", "-f", "%{file}|%{index}", style.NUMBER_FONT], capture_output=True,
                           text=True, check=True).stdout.split("|")
    font = TTFont(found[0], fontNumber=int(found[1] or 0), lazy=True)
    glyphs, pen = font.getGlyphSet(), BoundsPen(font.getGlyphSet())
    glyphs[font.getBestCmap()[ord("0")]].draw(pen)
    return (pen.bounds[3] - pen.bounds[1]) / font["head"].unitsPerEm


def smallest_pt(pdf, manifest):
    """The em, in points, of the smallest number a grid frame prints (every frame prints at one size)."""
    boxes = [(it["box"][3] - it["box"][1]) / manifest["frame"]["height"] for st in manifest["layout"]
             for it in st["items"] if it["kind"] in ("number", "label") and NUMBER.fullmatch(it["text"])]
    _, _, h, _, y = images(pdf)[0]
    printed_mm = h / y * 25.4
    return min(boxes) * printed_mm / digit_height() / (25.4 / 72)


def font_sizes(pdf):
    return {float(size) for page in PdfReader(str(pdf)).pages
            for size in re.findall(rb"/F\d+ ([\d.]+) Tf", page.get_contents().get_data())}


def test_the_handout_prints_light_frames_sharp_and_its_words_stay_text(rendered, tmp_path, monkeypatch):
    """... and the grid prints under each frame its step's caption (pdftotext, frame by frame).
    Planted (after the checks, the frames drawn already): the grid printing under each frame the next
    step's caption; every frame but the last is named."""
    manifest = json.loads((rendered / f"{CLIP}.numbers.json").read_text("utf-8"))
    handout, grid = write_deck(rendered, "pdf", "zh", CLIP), write_deck(rendered, "pdf:grid", "zh", CLIP)
    assert grid_problems(grid, manifest) == []
    assert handout.name == f"{CLIP}.pdf" and grid.name == f"{CLIP}.grid.pdf"
    assert len(images(handout)) == len(manifest["steps"]) == len(images(grid))
    assert dpi_problems(handout) == [] and dpi_problems(grid) == []
    assert smallest_pt(grid, manifest) >= LEAST_PT
    assert min(font_sizes(grid)) >= LEAST_PT
    text = subprocess.run(["pdftotext", "-raw", str(handout), "-"], capture_output=True, text=True, check=True,
                          timeout=60).stdout
    assert all("".join(st["caption"].split()) in "".join(text.split()) for st in manifest["steps"])
    subprocess.run(["pdftoppm", "-r", "300", "-png", "-f", "1", "-l", "1", str(handout), str(tmp_path / "page")],
                   check=True, timeout=60)
    page = np.asarray(Image.open(next(tmp_path.glob("page*.png"))).convert("L"), dtype=float)
    assert page.shape == (3508, 2481)                                  # A4 at 300 dpi (poppler rounds up)
    frame = page[int(3508 * 0.08):int(3508 * 0.38), int(2481 * 0.1):int(2481 * 0.9)]
    assert frame.mean() > 200 and frame.min() < 80                      # dark ink on a light frame
    first = Image.open(rendered / f"{CLIP}.sections" / "print-light" / "step-1.png")
    assert first.size == print_frames.PRINT_SIZE
    assert "#%02X%02X%02X" % first.getpixel((0, 0))[:3] == style.THEMES["light"]["background"]
    real = deck_pdf.grid_pages

    def next_caption(pdf, deck, section, frames, shape):
        steps = section.steps
        late = tuple(replace(s, caption=steps[min(n + 1, len(steps) - 1)].caption) for n, s in enumerate(steps))
        return real(pdf, deck, replace(section, steps=late), frames, shape)
    monkeypatch.setattr(deck_pdf, "grid_pages", next_caption)
    problems = grid_problems(write_deck(rendered, "pdf:grid", "zh", CLIP), manifest)
    named = {int(re.search(r"\(step (\d+)\)", p).group(1)) for p in problems}
    assert named == set(range(1, len(manifest["steps"]))), problems


def test_pdf_dark_keeps_the_videos_look(rendered):
    dark = write_deck(rendered, "pdf:dark", "zh", CLIP)
    assert dark.name == f"{CLIP}.dark.pdf" and dpi_problems(dark) == []
    first = Image.open(rendered / f"{CLIP}.sections" / "print-dark" / "step-1.png")
    assert "#%02X%02X%02X" % first.getpixel((0, 0))[:3] == style.THEMES["dark"]["background"]


def test_frames_at_1080p_and_the_old_grid_are_caught(rendered, monkeypatch):
    manifest = json.loads((rendered / f"{CLIP}.numbers.json").read_text("utf-8"))
    monkeypatch.setattr(print_frames, "PRINT_SIZE", (1920, 1080))
    assert dpi_problems(write_deck(rendered, "pdf", "zh", CLIP)) != []
    monkeypatch.setattr(deck_pdf, "GRID_LEAST_PT", 4)                  # the grid of 92 mm frames
    monkeypatch.setattr(deck_pdf, "GRID_NARROWEST", 92)
    assert smallest_pt(write_deck(rendered, "pdf:grid", "zh", CLIP), manifest) < LEAST_PT


def test_a_handout_of_other_inputs_than_rendered_is_refused(rendered):
    manifest_file = rendered / f"{CLIP}.numbers.json"
    manifest = json.loads(manifest_file.read_text("utf-8"))
    manifest["inputs"]["query"] = 99
    manifest_file.write_text(json.dumps(manifest, ensure_ascii=False), "utf-8")
    with pytest.raises(RuntimeError, match="inputs other than the book's"):
        write_deck(rendered, "pdf", "zh", CLIP)


def grid_captions(pdf):
    """Per page, the text printed under each frame, top to bottom (pdftotext -bbox: words grouped
    into lines by their top, lines into blocks where a frame's height parts them; the running head
    and the page number, the page's first and last blocks, left out)."""
    pages = len(PdfReader(str(pdf)).pages)
    out = []
    for p in range(1, pages + 1):
        html = subprocess.run(["pdftotext", "-bbox", "-f", str(p), "-l", str(p), str(pdf), "-"],
                              capture_output=True, text=True, check=True, timeout=60).stdout
        words = [(float(y0), float(y1), w) for y0, y1, w in
                 re.findall(r'<word xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)</word>', html)]
        blocks, last = [], None
        for y0, y1, w in sorted(words, key=lambda t: t[0]):
            if last is None or y0 - last > 20:            # points: a caption's lines are ~10 apart
                blocks.append("")
            blocks[-1] += w
            last = y0
        out.append(blocks[1:-1])
    return out


def grid_problems(pdf, manifest):
    """Frame by frame: the words under frame n are step n's caption (or its start and "…")."""
    printed = [(p, k, words) for p, blocks in enumerate(grid_captions(pdf), 1) for k, words in enumerate(blocks, 1)]
    captions = ["".join(st["caption"].split()) for st in manifest["steps"]]
    out = [] if len(printed) == len(captions) else [f"{len(printed)} captions printed for {len(captions)} steps"]
    for n, ((p, k, words), want) in enumerate(zip(printed, captions), 1):
        words = words.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
        ok = words == want or (words.endswith("…") and len(words) > 8 and want.startswith(words[:-1]))
        if not ok:
            out.append(f"page {p} frame {k} (step {n}): prints {words!r}, step {n}'s caption is {want!r}")
    return out
