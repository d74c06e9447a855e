"""The PowerPoint deck (python-pptx): a title slide per section, then a slide per step with the
step's video (playing when the slide is entered; its last frame as the poster), the caption as
the slide's title and the narration in the speaker notes. 16:9, on the clips' dark background."""
from __future__ import annotations

from pathlib import Path

from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.util import Emu, Inches, Pt

from scenes.kit import style
from scenes.kit.lang import SOURCE
from scenes.pipeline.deck import deck_of, poster, whole

WIDTH, HEIGHT = Emu(12192000), Emu(6858000)          # 13.33 x 7.5 in, PowerPoint's 16:9
MARGIN = Inches(0.4)
TITLE_HEIGHT = Inches(1.1)                           # two lines of a caption at 20 pt
TITLE_ONLY, TITLE_SLIDE = 5, 0                       # the default template's layouts


def colour(hex_code: str) -> RGBColor:
    return RGBColor.from_string(hex_code.lstrip("#"))


def dark(slide) -> None:
    slide.background.fill.solid()
    slide.background.fill.fore_color.rgb = colour(style.BACKGROUND)


def put(shape, text: str, left: int, top: int, width: int, height: int, size: int, hex_code: str) -> None:
    """A placeholder's text, box and type (the layout's boxes are for 4:3)."""
    shape.left, shape.top, shape.width, shape.height = left, top, width, height
    shape.text_frame.text = text
    shape.text_frame.word_wrap = True
    for paragraph in shape.text_frame.paragraphs:
        for run in paragraph.runs:
            run.font.size, run.font.color.rgb = Pt(size), colour(hex_code)


def play_on_entry(slide, movie) -> None:
    """python-pptx's movie plays on a click; its timing node set to start at once plays it on entry."""
    for cond in slide.element.xpath(f'./p:timing//p:video[.//p:spTgt/@spid="{movie.shape_id}"]'
                                    '/p:cMediaNode/p:cTn/p:stCondLst/p:cond'):
        cond.set("delay", "0")


def write_pptx(out: Path, lang: str = SOURCE, clip: str | None = None) -> Path:
    """OUT/chapter04.pptx (or OUT/CLIP.pptx; .en.pptx in English) from the rendered step videos."""
    deck = deck_of(out, lang, clip)
    prs = Presentation()
    prs.slide_width, prs.slide_height = WIDTH, HEIGHT
    prs.core_properties.title, prs.core_properties.language = deck.heading, lang
    inner = WIDTH - 2 * MARGIN
    video_top = MARGIN + TITLE_HEIGHT
    video_height = HEIGHT - video_top - MARGIN // 2
    video_width = video_height * 16 // 9
    for section in deck.sections:
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_SLIDE])
        dark(slide)
        put(slide.shapes.title, f"{section.section} {section.title}", MARGIN, Inches(2.4), inner,
            Inches(1.5), 40, style.TEXT)
        put(slide.placeholders[1], deck.heading, MARGIN, Inches(4.1), inner, Inches(1), 20, style.MUTED)
        for step in section.steps:
            slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
            dark(slide)
            put(slide.shapes.title, step.caption, MARGIN, MARGIN // 2, inner, TITLE_HEIGHT, 20, style.TEXT)
            movie = slide.shapes.add_movie(str(step.video), (WIDTH - video_width) // 2, video_top,
                                           video_width, video_height, mime_type="video/mp4",
                                           poster_frame_image=str(poster(step.video)))
            play_on_entry(slide, movie)
            slide.notes_slide.notes_text_frame.text = step.notes
    return whole(out / f"{deck.name}.pptx", lambda tmp: prs.save(str(tmp)))
