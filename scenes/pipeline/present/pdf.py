"""The PDF handout (fpdf2): per step its last frame, the derivations it makes (the expressions as
drawn, under the frame), caption and narration on an A4 page, or
(grid) three frames a page with ruled room for notes; each section a bookmark. The Noto faces the
clips use are embedded (subset): Noto Sans CJK SC, and Noto Sans for English words.

For paper: the frames are drawn again for print (frames.py) in the light theme (dark: the video's),
at 2560 x 1440 (361 dpi across the page); a grid frame is as wide as its smallest number needs to
print at GRID_LEAST_PT or more. The words are text: a reader finds them, a screen reader reads them."""
from __future__ import annotations

import json
import logging
import math
import re
import subprocess
from pathlib import Path

from fpdf import FPDF
from PIL import Image

from scenes.kit.text import style
from scenes.kit.text.lang import FONTS, SOURCE
from scenes.pipeline.present.deck import Deck, Section, deck_of, whole
from scenes.pipeline.present.frames import print_frames

PAGE_W, MARGIN = 210, 15                 # A4 portrait, mm
TOP, BOTTOM, FOOT = 18, 280, 287         # the frame's top, the last rule, the page number
WIDE = PAGE_W - 2 * MARGIN
GRID_SIZE, GRID_LEAST = 8, 7            # a grid caption: 8 pt, smaller (down to 7 pt) where it is long
GRID_TOP, GRID_BOTTOM = 16, 283         # mm: the grid's first frame's top, its foot
GRID_CAPTION = 12                        # mm under a grid frame at least: three caption lines at 8 pt
GRID_LEAST_PT = 7                        # the smallest number in a grid frame, printed (its em, pt)
GRID_NARROWEST = 110                     # mm: a grid frame is never narrower
PT = 25.4 / 72                           # mm
FRAME_HEIGHT = 8.0                       # the scene's frame height in units (the manifests' frame)
NUMBER = re.compile("[\u2212+-]?[0-9][0-9.,]*")
CJK = "\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
TOKENS = re.compile(f"[{CJK}]|[^\\s{CJK}]+|\\s+")         # one CJK character, a word, or a space
CLOSING = set("，。、；：！？）」』》〉】”’")                    # never opens a line
INK, MUTED, RULE = (20, 20, 20), (110, 120, 128), (190, 196, 200)


def face(family: str) -> tuple[str, int]:
    """The installed file of a font family, and its index in a collection, from fontconfig."""
    found = subprocess.run(["fc-match", "-f", "%{file}\n%{index}\n%{family}", family],
                           capture_output=True, text=True)
    fields = found.stdout.split("\n")
    if found.returncode or len(fields) < 3 or family not in fields[2].split(","):
        raise RuntimeError(f"font {family!r} is not installed: bash run.sh setup installs it")
    return fields[0], int(fields[1] or 0)


def new_pdf(deck: Deck) -> FPDF:
    logging.getLogger("fontTools").setLevel(logging.WARNING)    # its subsetter reports every table
    pdf = FPDF(orientation="P", unit="mm", format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_title(deck.heading)
    pdf.set_lang(deck.lang)
    pdf.set_creator("render.py --deck")
    main = FONTS.get(deck.lang, style.FONT)
    other = next(f for f in (style.FONT, FONTS["en"]) if f != main)
    for family in (main, other):
        file, index = face(family)
        pdf.add_font(family, fname=file, collection_font_number=index)
    pdf.set_fallback_fonts([other])        # the CJK face lacks ᵀ ᵢ ₖ, the Latin one − √ ∞ and CJK
    return pdf


def frames_of(out: Path, deck: Deck, section: Section, theme: str, given: dict | None) -> list[Image.Image]:
    """The section's frames for print, one a step (frames.print_frames)."""
    drawn = print_frames(out, section.name, section.clip, deck.lang, theme, (given or {}).get(section.clip))
    return [Image.open(path) for path in drawn]


def smallest_number(out: Path, deck: Deck) -> float:
    """The height of the smallest number on any step's last frame of the deck (its box in the
    layout record), as a share of the frame's height; the contract's floor where none is drawn."""
    heights = []
    for section in deck.sections:
        manifest = json.loads((out / f"{section.name}.numbers.json").read_text("utf-8"))
        heights += [(it["box"][3] - it["box"][1]) / manifest["frame"]["height"]
                    for step in manifest["layout"] for it in step["items"]
                    if it["kind"] in ("number", "label") and NUMBER.fullmatch(it["text"])]
    return min(heights, default=style.LEGIBLE_H / FRAME_HEIGHT)


def grid_frame(out: Path, deck: Deck) -> tuple[float, float, int, float]:
    """A grid frame's width and height, the frames a page and their pitch (mm): as wide as the
    deck's smallest number needs to print GRID_LEAST_PT tall (its em), GRID_NARROWEST at least,
    the page's width at most."""
    height = GRID_LEAST_PT * PT * style.DIGIT_HEIGHT / smallest_number(out, deck)
    width = min(WIDE, max(GRID_NARROWEST, math.ceil(height * 16 / 9)))
    height = width * 9 / 16
    rows = max(1, int((GRID_BOTTOM - GRID_TOP) // (height + GRID_CAPTION)))
    return width, height, rows, (GRID_BOTTOM - GRID_TOP) / rows


def lines(pdf: FPDF, words: str, width: float) -> list[str]:
    """`words` broken into lines of at most `width` as Chinese is set: between any two CJK
    characters or at a space, never inside a Latin word or number, no line opening on ，。 etc."""
    out = []
    for paragraph in words.split("\n"):
        line = ""
        for token in TOKENS.findall(paragraph):
            if line.strip() and not token.isspace() and token not in CLOSING \
                    and pdf.get_string_width(line + token) > width:
                out.append(line.rstrip())
                line = token
            else:
                line += token
        out.append(line.rstrip())
    return out


def text(pdf: FPDF, deck: Deck, words: str, size: float, colour: tuple, x: float, width: float,
         height: float) -> None:
    pdf.set_font(FONTS.get(deck.lang, style.FONT), size=size)
    pdf.set_text_color(*colour)
    for line in lines(pdf, words, width * 0.98):     # 2% spare: fallback glyphs are measured in the main face
        pdf.set_x(x)
        pdf.cell(width, height, line, new_x="LMARGIN", new_y="NEXT")


def line_height(size: float) -> float:
    return 3.5 * size / GRID_SIZE


def fitted(pdf: FPDF, deck: Deck, words: str, width: float, size: float, room: float) -> float:
    """The largest size, down from `size` by half points to GRID_LEAST, at which `words` set as
    text() sets them take at most `room` mm (a caption under a grid frame stays above the next)."""
    while True:
        pdf.set_font(FONTS.get(deck.lang, style.FONT), size=size)
        if size <= GRID_LEAST or len(lines(pdf, words, width * 0.98)) * line_height(size) <= room:
            return size
        size -= 0.5


def cut(pdf: FPDF, deck: Deck, words: str, width: float, size: float, room: float) -> str:
    """`words` cut to the lines that fit in `room` mm at `size`, the last one ending in "…"."""
    pdf.set_font(FONTS.get(deck.lang, style.FONT), size=size)
    most, shown = max(1, int(room // line_height(size))), words
    while len(lines(pdf, shown, width * 0.98)) > most:
        words = words[:-1].rstrip()
        shown = words + "…"
    return shown


def page(pdf: FPDF, deck: Deck, section: Section, first: bool) -> None:
    """A new page with its running head; the section's first page carries its bookmark."""
    pdf.add_page()
    if first:
        pdf.start_section(f"{section.section} {section.title}")
    pdf.set_y(8)
    text(pdf, deck, f"{section.section} {section.title}", 9, MUTED, MARGIN, WIDE, 5)
    pdf.set_y(FOOT)
    text(pdf, deck, str(pdf.page_no()), 9, MUTED, MARGIN, WIDE, 5)


def steps_pages(pdf: FPDF, deck: Deck, section: Section, frames: list[Image.Image]) -> None:
    for n, step in enumerate(section.steps):
        page(pdf, deck, section, n == 0)
        height = WIDE * 9 / 16
        framed(pdf, frames[n], MARGIN, TOP, WIDE, height)
        pdf.set_y(TOP + height + 3)
        for expression in step.derivations:
            text(pdf, deck, expression, 10, MUTED, MARGIN, WIDE, 5)
        pdf.set_y(pdf.get_y() + 3)
        text(pdf, deck, step.caption, 14, INK, MARGIN, WIDE, 7)
        pdf.ln(3)
        text(pdf, deck, step.notes, 11, INK, MARGIN, WIDE, 6)
        rules(pdf, MARGIN, pdf.get_y() + 8, BOTTOM)


def framed(pdf: FPDF, image: Image.Image, x: float, y: float, w: float, h: float) -> None:
    """A frame with a hairline round it (a light frame's white meets the paper's)."""
    pdf.image(image, x=x, y=y, w=w, h=h)
    pdf.set_draw_color(*RULE)
    pdf.set_line_width(0.2)
    pdf.rect(x, y, w, h)


def rules(pdf: FPDF, x: float, top: float, bottom: float, gap: float = 8) -> None:
    """Ruled room for notes, from x to the right margin."""
    pdf.set_draw_color(*RULE)
    for k in range(int((bottom - top) / gap + 1e-6) + 1):
        pdf.line(x, top + k * gap, PAGE_W - MARGIN, top + k * gap)


def grid_pages(pdf: FPDF, deck: Deck, section: Section, frames: list[Image.Image],
               shape: tuple[float, float, int, float]) -> None:
    width, height, rows, pitch = shape
    notes_x = MARGIN + width + 6
    room = pitch - height - 2
    for n, step in enumerate(section.steps):
        row = n % rows
        if row == 0:
            page(pdf, deck, section, n == 0)
        top = GRID_TOP + row * pitch
        framed(pdf, frames[n], MARGIN, top, width, height)
        pdf.set_y(top + height + 1)
        size = fitted(pdf, deck, step.caption, width, GRID_SIZE, room)
        text(pdf, deck, cut(pdf, deck, step.caption, width, size, room), size, INK, MARGIN, width, line_height(size))
        rules(pdf, notes_x, top + height / 7, top + height, height / 7)


def write_pdf(out: Path, lang: str = SOURCE, clip: str | None = None, grid: bool = False,
              theme: str = "light", given: dict | None = None) -> Path:
    """OUT/chapter04.pdf (or CLIP.pdf; .en.pdf in English), or with grid NAME.grid.pdf; its frames
    in `theme` (light: for paper; dark: NAME.dark.pdf, NAME.grid.dark.pdf). given: clip -> the raw
    inputs it was rendered from, where not the book's or its course's."""
    deck = deck_of(out, lang, clip)
    pdf = new_pdf(deck)
    shape = grid_frame(out, deck) if grid else None
    for section in deck.sections:
        frames = frames_of(out, deck, section, theme, given)
        if shape:
            grid_pages(pdf, deck, section, frames, shape)
        else:
            steps_pages(pdf, deck, section, frames)
    name = f"{deck.name}{'.grid' if grid else ''}{'' if theme == 'light' else '.' + theme}.pdf"
    return whole(out / name, lambda tmp: pdf.output(str(tmp)))
