"""The PowerPoint deck (python-pptx): a title slide per section, then a slide per step with the
step's video (playing when the slide is entered; its last frame as the poster), the caption as
the slide's title and the narration in the speaker notes. 16:9, on the clips' dark background."""
from __future__ import annotations

from pathlib import Path

from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.oxml import parse_xml
from pptx.oxml.ns import nsdecls, qn
from pptx.util import Emu, Inches, Pt

from scenes.kit.text import style
from scenes.kit.text.lang import FONTS, SOURCE
from scenes.pipeline.present.deck import deck_of, duration, poster, whole

WIDTH, HEIGHT = Emu(12192000), Emu(6858000)          # 13.33 x 7.5 in, PowerPoint's 16:9
MARGIN = Inches(0.4)
TITLE_HEIGHT = Inches(1.1)                           # two lines of a caption at 20 pt
TITLE_ONLY, TITLE_SLIDE = 5, 0                       # the default template's layouts
LOCALES = {"zh": "zh-CN", "en": "en-US"}


def colour(hex_code: str) -> RGBColor:
    return RGBColor.from_string(hex_code.lstrip("#"))


def dark(slide) -> None:
    slide.background.fill.solid()
    slide.background.fill.fore_color.rgb = colour(style.BACKGROUND)


def typeset(frame, lang: str) -> None:
    """Each run in the clips' faces and marked with its language (left to the template, PowerPoint
    sets Chinese in its theme's SimSun). Where Noto is missing, PowerPoint substitutes by the
    charset (GB2312) and pitch family (sans) given with the face."""
    for paragraph in frame.paragraphs:
        for run in paragraph.runs:
            run.font.name = FONTS.get(lang, style.FONT)                 # a:latin
            props = run.font._rPr
            props.set("lang", LOCALES[lang])
            for old in props.findall(qn("a:ea")):
                props.remove(old)
            props.find(qn("a:latin")).addnext(parse_xml(
                f'<a:ea {nsdecls("a")} typeface="{style.FONT}" charset="-122" pitchFamily="34"/>'))


def put(shape, text: str, left: int, top: int, width: int, height: int, size: int, hex_code: str,
        lang: str) -> None:
    """A placeholder's text, box and type (the layout's boxes are for 4:3)."""
    shape.left, shape.top, shape.width, shape.height = left, top, width, height
    shape.text_frame.text = text
    shape.text_frame.word_wrap = True
    for paragraph in shape.text_frame.paragraphs:
        for run in paragraph.runs:
            run.font.size, run.font.color.rgb = Pt(size), colour(hex_code)
    typeset(shape.text_frame, lang)


# PowerPoint's "Start: Automatically": the slide's main sequence opens with an effect that starts
# when the sequence begins (onBegin of its node) and calls playFrom(0.0) on the movie. Lines are
# joined as they are (a line that goes on inside a tag starts with its space); ids are set after.
AUTOPLAY = """<p:seq {ns} concurrent="1" nextAc="seek">
<p:cTn id="0" dur="indefinite" nodeType="mainSeq"><p:childTnLst>
<p:par><p:cTn id="0" fill="hold"><p:stCondLst><p:cond delay="indefinite"/>
<p:cond evt="onBegin" delay="0"><p:tn val="0"/></p:cond></p:stCondLst><p:childTnLst>
<p:par><p:cTn id="0" fill="hold"><p:stCondLst><p:cond delay="0"/></p:stCondLst><p:childTnLst>
<p:par><p:cTn id="0" presetID="1" presetClass="mediacall" presetSubtype="0"
 fill="hold" nodeType="afterEffect">
<p:stCondLst><p:cond delay="0"/></p:stCondLst><p:childTnLst>
<p:cmd type="call" cmd="playFrom(0.0)"><p:cBhvr><p:cTn id="0" dur="{ms}" fill="hold"/>
<p:tgtEl><p:spTgt spid="{spid}"/></p:tgtEl></p:cBhvr></p:cmd>
</p:childTnLst></p:cTn></p:par></p:childTnLst></p:cTn></p:par></p:childTnLst></p:cTn></p:par>
</p:childTnLst></p:cTn>
<p:prevCondLst><p:cond evt="onPrev" delay="0"><p:tgtEl><p:sldTgt/></p:tgtEl></p:cond></p:prevCondLst>
<p:nextCondLst><p:cond evt="onNext" delay="0"><p:tgtEl><p:sldTgt/></p:tgtEl></p:cond></p:nextCondLst>
</p:seq>"""


def play_on_entry(slide, movie, seconds: float) -> None:
    """python-pptx's movie plays when clicked; a main sequence whose first effect starts with the
    slide plays it on entry, as PowerPoint writes "Start: Automatically" (LibreOffice reads it as
    a media effect "after previous"). The time nodes are then numbered in document order."""
    root = slide.element.xpath("./p:timing/p:tnLst/p:par/p:cTn/p:childTnLst")[0]
    root.insert(0, parse_xml(AUTOPLAY.replace("\n", "").format(
        ns=nsdecls("p"), ms=max(1, round(seconds * 1000)), spid=movie.shape_id)))
    for n, node in enumerate(slide.element.xpath("./p:timing//p:cTn"), 1):
        node.set("id", str(n))
    main = slide.element.xpath('./p:timing//p:cTn[@nodeType="mainSeq"]/@id')[0]
    slide.element.xpath("./p:timing//p:cond[@evt='onBegin']/p:tn")[0].set("val", main)


def write_pptx(out: Path, lang: str = SOURCE, clip: str | None = None) -> Path:
    """OUT/chapter04.pptx (or OUT/CLIP.pptx; .en.pptx in English) from the rendered step videos."""
    deck = deck_of(out, lang, clip)
    prs = Presentation()
    prs.slide_width, prs.slide_height = WIDTH, HEIGHT
    prs.core_properties.title, prs.core_properties.language = deck.heading, LOCALES[lang]
    inner = WIDTH - 2 * MARGIN
    video_top = MARGIN + TITLE_HEIGHT
    video_height = HEIGHT - video_top - MARGIN // 2
    video_width = video_height * 16 // 9
    for section in deck.sections:
        slide = prs.slides.add_slide(prs.slide_layouts[TITLE_SLIDE])
        dark(slide)
        put(slide.shapes.title, f"{section.section} {section.title}", MARGIN, Inches(2.4), inner,
            Inches(1.5), 40, style.TEXT, deck.lang)
        put(slide.placeholders[1], deck.heading, MARGIN, Inches(4.1), inner, Inches(1), 20, style.MUTED,
            deck.lang)
        for step in section.steps:
            slide = prs.slides.add_slide(prs.slide_layouts[TITLE_ONLY])
            dark(slide)
            put(slide.shapes.title, step.caption, MARGIN, MARGIN // 2, inner, TITLE_HEIGHT, 20, style.TEXT,
                deck.lang)
            movie = slide.shapes.add_movie(str(step.video), (WIDTH - video_width) // 2, video_top,
                                           video_width, video_height, mime_type="video/mp4",
                                           poster_frame_image=str(poster(step.video)))
            play_on_entry(slide, movie, duration(step.video))
            slide.notes_slide.notes_text_frame.text = step.notes
            typeset(slide.notes_slide.notes_text_frame, deck.lang)
    return whole(out / f"{deck.name}.pptx", lambda tmp: prs.save(str(tmp)))
