"""The PDF handout (fpdf2): per step its last frame, the derivations it makes (the expressions as
drawn, under the frame), caption and narration on an A4 page, or
(grid) four frames a page with ruled room for notes; each section a bookmark. The Noto faces the
clips use are embedded (subset): Noto Sans CJK SC, and Noto Sans for English words."""
from __future__ import annotations

import logging
import re
import subprocess
from pathlib import Path

from fpdf import FPDF
from PIL import Image

from scenes.kit.text import style
from scenes.kit.text.lang import FONTS, SOURCE
from scenes.pipeline.present.deck import Deck, Section, deck_of, poster, whole

PAGE_W, MARGIN = 210, 15                 # A4 portrait, mm
TOP, BOTTOM, FOOT = 18, 280, 287         # the frame's top, the last rule, the page number
WIDE = PAGE_W - 2 * MARGIN
IMAGE_WIDTH = 1280                       # px of a frame in the PDF: 180 dpi across the page
GRID_ROWS, GRID_PITCH, GRID_IMAGE = 4, 66, 92      # the grid: rows, row height, frame width (mm)
GRID_LINES, GRID_SIZE = 3, 8             # a grid caption: at most 3 lines (else smaller), 8 pt
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


def frame_image(step_video: Path) -> Image.Image:
    """The step's last frame, at most IMAGE_WIDTH wide (a 4K frame would only make the file big)."""
    image: Image.Image = Image.open(poster(step_video))
    if image.width > IMAGE_WIDTH:
        size = (IMAGE_WIDTH, image.height * IMAGE_WIDTH // image.width)
        image = image.resize(size, Image.Resampling.LANCZOS)
    return image


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


def fitted(pdf: FPDF, deck: Deck, words: str, width: float, size: float, most: int) -> float:
    """The largest size, down from `size` by half points to 5 pt, at which `words` set as text()
    sets them takes at most `most` lines (a caption under a grid frame stays above the next)."""
    while True:
        pdf.set_font(FONTS.get(deck.lang, style.FONT), size=size)
        if size <= 5 or len(lines(pdf, words, width * 0.98)) <= most:
            return size
        size -= 0.5


def page(pdf: FPDF, deck: Deck, section: Section, first: bool) -> None:
    """A new page with its running head; the section's first page carries its bookmark."""
    pdf.add_page()
    if first:
        pdf.start_section(f"{section.section} {section.title}")
    pdf.set_y(8)
    text(pdf, deck, f"{section.section} {section.title}", 9, MUTED, MARGIN, WIDE, 5)
    pdf.set_y(FOOT)
    text(pdf, deck, str(pdf.page_no()), 9, MUTED, MARGIN, WIDE, 5)


def steps_pages(pdf: FPDF, deck: Deck, section: Section) -> None:
    for n, step in enumerate(section.steps):
        page(pdf, deck, section, n == 0)
        height = WIDE * 9 / 16
        pdf.image(frame_image(step.video), x=MARGIN, y=TOP, w=WIDE, h=height)
        pdf.set_y(TOP + height + 3)
        for expression in step.derivations:
            text(pdf, deck, expression, 10, MUTED, MARGIN, WIDE, 5)
        pdf.set_y(pdf.get_y() + 3)
        text(pdf, deck, step.caption, 14, INK, MARGIN, WIDE, 7)
        pdf.ln(3)
        text(pdf, deck, step.notes, 11, INK, MARGIN, WIDE, 6)
        rules(pdf, MARGIN, pdf.get_y() + 8, BOTTOM)


def rules(pdf: FPDF, x: float, top: float, bottom: float, gap: float = 8) -> None:
    """Ruled room for notes, from x to the right margin."""
    pdf.set_draw_color(*RULE)
    for k in range(int((bottom - top) / gap + 1e-6) + 1):
        pdf.line(x, top + k * gap, PAGE_W - MARGIN, top + k * gap)


def grid_pages(pdf: FPDF, deck: Deck, section: Section) -> None:
    height = GRID_IMAGE * 9 / 16
    notes_x = MARGIN + GRID_IMAGE + 6
    for n, step in enumerate(section.steps):
        row = n % GRID_ROWS
        if row == 0:
            page(pdf, deck, section, n == 0)
        top = TOP + row * GRID_PITCH
        pdf.image(frame_image(step.video), x=MARGIN, y=top, w=GRID_IMAGE, h=height)
        pdf.set_y(top + height + 1)
        size = fitted(pdf, deck, step.caption, GRID_IMAGE, GRID_SIZE, GRID_LINES)
        text(pdf, deck, step.caption, size, INK, MARGIN, GRID_IMAGE, 3.5 * size / GRID_SIZE)
        rules(pdf, notes_x, top + height / 7, top + height, height / 7)


def write_pdf(out: Path, lang: str = SOURCE, clip: str | None = None, grid: bool = False) -> Path:
    """OUT/chapter04.pdf (or CLIP.pdf; .en.pdf in English), or with grid NAME.grid.pdf."""
    deck = deck_of(out, lang, clip)
    pdf = new_pdf(deck)
    for section in deck.sections:
        (grid_pages if grid else steps_pages)(pdf, deck, section)
    return whole(out / f"{deck.name}{'.grid' if grid else ''}.pdf", lambda tmp: pdf.output(str(tmp)))
