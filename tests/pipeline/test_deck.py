"""The deck and the handout, read back: `render.py chapter --deck ...` on the tiny chapter renders
nothing again; the PPTX has a title slide per section and a slide per step with its video (played
on entry), its last frame as the poster, the caption as title and the narration as notes; the PDF
has a page per step (or three a page), the sections as bookmarks, the captions as text, every font
embedded; poppler reads its text and draws a page, its frame in the light theme (the frames drawn
for print here at a small size, to be quick; at their real size in test_handout_print.py). (How the
office programs read the deck: test_deck_office.py.)"""
import io
import json
import math
import re
import shutil
import subprocess
from dataclasses import replace

import av
import numpy as np
import pytest
from fontTools.ttLib import TTFont
from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pypdf import PdfReader

from conftest import cli
from scenes.kit.text import lang as language
from scenes.kit.text import style
from scenes.kit.text.lang import FONTS
from scenes.pipeline.present import frames as print_frames
from scenes.pipeline.present import pdf as deck_pdf
from scenes.pipeline.present.explain import derivations
from scenes.pipeline.present.pptx import play_on_entry
from scenes.pipeline.present.decks import write as write_deck
from scenes.pipeline.jobs.registry import specs


SMALL_PRINT = (640, 360)


@pytest.fixture(autouse=True, scope="module")
def small_print():
    """The handout's frames drawn at 640 x 360 in this module (2560 x 1440 costs seconds a clip)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(print_frames, "PRINT_SIZE", SMALL_PRINT)
        yield


@pytest.fixture(scope="module")
def decks(tiny_chapter):
    """The three decks of the tiny chapter through the CLI, which finds every clip up to date."""
    videos = sorted(tiny_chapter.glob("*.sections/*.mp4"))
    before = [p.stat().st_mtime_ns for p in videos]
    code, out = cli("chapter", "--quality", "tiny", "--out", tiny_chapter,
                    "--deck", "pptx", "--deck", "pdf", "--deck", "pdf:grid")
    assert code == 0, out
    assert [p.stat().st_mtime_ns for p in videos] == before            # nothing rendered again
    assert "[chapter]" not in out
    return tiny_chapter


def sections_of(folder, lang="zh"):
    """[(section, title, steps)] in book order: each step of the manifest with its video from
    Manim's section index."""
    parts = []
    for clip, spec in specs().items():
        manifest = json.loads((folder / f"{clip}.numbers.json").read_text("utf-8"))
        steps = [dict(st, derivations=derivations(manifest, n)) for n, st in enumerate(manifest["steps"], 1)]
        index = json.loads((folder / f"{clip}.sections" / f"{clip}.json").read_text("utf-8"))
        videos = {s["name"]: folder / f"{clip}.sections" / s["video"] for s in index}
        parts.append((spec.section, spec.heading(lang),
                      [dict(st, video=videos[f"step-{n}"]) for n, st in enumerate(steps, 1)]))
    return parts


def uncovered(steps):
    """Characters of the captions, narration and derivations that neither embedded face can draw."""
    covered = set()
    for family in (style.FONT, FONTS["en"]):
        file, index = deck_pdf.face(family)
        covered |= set(TTFont(file, fontNumber=index, lazy=True).getBestCmap())
    return sorted({c for st in steps for c in st["caption"] + st["narration"] + "".join(st.get("derivations", ()))
                   if not c.isspace() and ord(c) not in covered})


def frames(video):
    with av.open(str(video)) as box:
        decoded = [f.to_ndarray(format="rgb24") for f in box.decode(video=0)]
    return decoded[0], decoded[-1]


def autoplayed(slide):
    """The shapes PowerPoint's "Start: Automatically" plays: playFrom(0) calls of an effect after
    the previous one, in a par that starts when the main sequence begins."""
    main = slide.element.xpath('./p:timing//p:cTn[@nodeType="mainSeq"]')
    ids = slide.element.xpath("./p:timing//p:cTn/@id")
    if len(main) != 1 or len(ids) != len(set(ids)):
        return []
    start = f'p:cond[@evt="onBegin"]/p:tn/@val="{main[0].get("id")}"'
    return slide.element.xpath(f'./p:timing//p:cTn[@nodeType="mainSeq"]//p:par[p:cTn/p:stCondLst/{start}]'
                               '//p:cTn[@nodeType="afterEffect"]//p:cmd[@cmd="playFrom(0.0)"]//p:spTgt/@spid')


def test_the_deck_has_a_title_slide_per_section_then_a_playing_video_per_step(decks):
    prs = Presentation(str(decks / "chapter04.pptx"))
    slides = iter(prs.slides)
    teeth = 0
    for section, title, steps in sections_of(decks):
        slide = next(slides)
        assert slide.shapes.title.text == f"{section} {title}" and "{" not in title   # its slots filled
        assert not [s for s in slide.shapes if s.shape_type == MSO_SHAPE_TYPE.MEDIA]
        for step in steps:
            slide = next(slides)
            movies = [s for s in slide.shapes if s.shape_type == MSO_SHAPE_TYPE.MEDIA]
            assert len(movies) == 1 and slide.shapes.title.text == step["caption"]
            assert slide.notes_slide.notes_text_frame.text == (step["narration"] or step["caption"])
            media = [r.target_part.blob for r in slide.part.rels.values() if r.reltype.endswith("/media")]
            assert media == [step["video"].read_bytes()]                  # the step's own video
            first, last = frames(step["video"])
            shown = np.asarray(Image.open(io.BytesIO(movies[0].poster_frame.blob)).convert("RGB"))
            assert np.array_equal(shown, last)                            # the poster: its last frame
            teeth += not np.array_equal(first, last)
            assert autoplayed(slide) == [str(movies[0].shape_id)]          # plays on entry
    assert next(slides, None) is None
    assert teeth > len(prs.slides) // 2           # a first-frame poster would have failed above


def test_the_autoplay_check_fails_python_pptxs_own_movie_which_plays_on_click(tiny_chapter):
    video = sorted((tiny_chapter / "dropout.sections").glob("*.mp4"))[0]
    prs = Presentation()
    shown = []
    for entry in (False, True):
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        movie = slide.shapes.add_movie(str(video), 0, 0, 4 * 914400, 9 * 914400 // 4, mime_type="video/mp4")
        if entry:
            play_on_entry(slide, movie, 1.0)
        shown.append((autoplayed(slide), str(movie.shape_id)))
    assert shown[0][0] == [] and shown[1][0] == [shown[1][1]]


def test_the_handout_has_a_page_per_step_bookmarks_text_and_embedded_fonts(decks):
    parts = sections_of(decks)
    reader = PdfReader(str(decks / "chapter04.pdf"))
    assert len(reader.pages) == sum(len(steps) for _, _, steps in parts)
    marks = [(m.title, reader.get_destination_page_number(m)) for m in reader.outline]
    starts = np.cumsum([0] + [len(steps) for _, _, steps in parts[:-1]]).tolist()
    assert marks == [(f"{s} {t}", n) for (s, t, _), n in zip(parts, starts)]
    faces = set()
    for page in reader.pages:
        for font in page["/Resources"]["/Font"].values():
            font = font.get_object()
            described = font["/DescendantFonts"][0].get_object() if "/DescendantFonts" in font else font
            files = [k for k in described["/FontDescriptor"] if k.startswith("/FontFile")]
            assert files, font["/BaseFont"]                              # embedded, not referenced
            faces.add(font["/BaseFont"].split("+")[-1])
    assert "NotoSansCJKSC" in faces
    assert uncovered([st for _, _, steps in parts for st in steps]) == []   # no tofu

    grid = PdfReader(str(decks / "chapter04.grid.pdf"))
    rows = deck_pdf.grid_frame(decks, deck_pdf.deck_of(decks, "zh"))[2]
    assert rows == 3
    assert len(grid.pages) == sum(math.ceil(len(steps) / rows) for _, _, steps in parts)
    assert [m.title for m in grid.outline] == [f"{s} {t}" for s, t, _ in parts]


def missing_derivations(pdf, steps):
    """The derivations (as drawn) that the step's page of the handout does not list."""
    text = subprocess.run(["pdftotext", "-raw", str(pdf), "-"], capture_output=True,
                          text=True, check=True, timeout=60).stdout.split("\f")
    return [d for page, step in zip(text, steps) for d in step["derivations"]
            if "".join(d.split()) not in "".join(page.split())]


def test_each_step_page_lists_the_derivations_it_makes(decks, tmp_path, monkeypatch):
    steps = [st for _, _, part in sections_of(decks) for st in part]
    assert sum(len(st["derivations"]) for st in steps) >= 8
    assert missing_derivations(decks / "chapter04.pdf", steps) == []
    deck = deck_pdf.deck_of(decks, "zh", "weighted-average")                  # planted: a handout without them
    bare = replace(deck, sections=tuple(replace(s, steps=tuple(replace(st, derivations=()) for st in s.steps))
                                        for s in deck.sections))
    for name in ("weighted-average.numbers.json", "weighted-average.sections"):
        (shutil.copytree if (decks / name).is_dir() else shutil.copy)(decks / name, tmp_path / name)
    monkeypatch.setattr(deck_pdf, "deck_of", lambda *args: bare)
    mine = [st for section, _, part in sections_of(decks) if section == "4.1" for st in part]
    assert missing_derivations(deck_pdf.write_pdf(tmp_path, "zh", "weighted-average"), mine) != []


def test_poppler_reads_every_caption_and_narration_and_rasterises_a_page(decks, tmp_path):
    # (pypdf's text extraction misreads fpdf2's CMap encoding of the CFF face: poppler's is the reader here)
    text = subprocess.run(["pdftotext", "-raw", str(decks / "chapter04.pdf"), "-"], capture_output=True,
                          text=True, check=True, timeout=60).stdout.split("\f")
    pages = iter(text)
    squash = "".join
    for _, _, steps in sections_of(decks):
        for step in steps:
            words = squash(next(pages).split())
            assert squash(step["caption"].split()) in words
            assert squash((step["narration"] or step["caption"]).split()) in words
    subprocess.run(["pdftoppm", "-r", "40", "-png", "-f", "1", "-l", "1", str(decks / "chapter04.pdf"),
                    str(tmp_path / "page")], check=True, timeout=60)
    page = np.asarray(Image.open(next(tmp_path.glob("page*.png"))).convert("L"), dtype=float)
    h, w = page.shape
    assert (w, h) == (331, 468)                                           # A4 at 40 dpi
    frame = page[int(h * 0.08):int(h * 0.38), int(w * 0.1):int(w * 0.9)]
    assert frame.mean() > 200 and frame.std() > 5                         # a light frame, not blank
    below = page[int(h * 0.42):int(h * 0.55), int(w * 0.07):int(w * 0.93)]
    assert below.min() < 128 and below.mean() > 200                       # dark words on white


WORD = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)')


def words_on_frames(pdf, shape):
    """Words of the grid's first page whose boxes reach into one of its frames (pdftotext -bbox,
    points from the top left)."""
    html = subprocess.run(["pdftotext", "-bbox", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True,
                          text=True, check=True, timeout=60).stdout
    mm = 72 / 25.4
    width, height, rows, pitch = shape
    left, right = deck_pdf.MARGIN * mm, (deck_pdf.MARGIN + width) * mm
    tops = [(deck_pdf.GRID_TOP + row * pitch) * mm for row in range(rows)]
    height = height * mm
    found = []
    for word in WORD.finditer(html):
        x0, y0, x1, y1 = map(float, word.groups()[:4])
        found += [word[5] for top in tops
                  if x0 < right and x1 > left and y0 < top + height - 0.5 and y1 > top + 0.5]
    return found


def test_a_long_grid_caption_is_set_smaller_above_the_next_frame(tiny_chapter, tmp_path, monkeypatch):
    deck = deck_pdf.deck_of(tiny_chapter, "zh", "dropout")
    section = deck.sections[0]
    long = replace(section.steps[0], caption=section.steps[0].caption * 10)    # nine lines at 8 pt
    fake = replace(deck, sections=(replace(section, steps=(long,) + section.steps[1:]),))
    for name in ("dropout.numbers.json", "dropout.sections"):
        (shutil.copytree if (tiny_chapter / name).is_dir() else shutil.copy)(tiny_chapter / name, tmp_path / name)
    monkeypatch.setattr(deck_pdf, "deck_of", lambda *args: fake)
    shape = deck_pdf.grid_frame(tmp_path, fake)
    pdf = deck_pdf.write_pdf(tmp_path, "zh", "dropout", grid=True)
    assert words_on_frames(pdf, shape) == []
    monkeypatch.setattr(deck_pdf, "cut", lambda *args: args[2])                 # never cut
    monkeypatch.setattr(deck_pdf, "fitted", lambda *args: args[4])              # never smaller
    assert words_on_frames(deck_pdf.write_pdf(tmp_path, "zh", "dropout", grid=True), shape) != []


def test_a_clip_deck_in_english_embeds_the_latin_face(tmp_path, monkeypatch):
    monkeypatch.setattr(language, "current", language.current)            # the CLI switches it
    code, out = cli("score-grid", "--quality", "tiny", "--lang", "en", "--deck", "pptx", "--deck", "pdf",
                    "--out", tmp_path)
    assert code == 0, out
    steps = json.loads((tmp_path / "score-grid.en.numbers.json").read_text("utf-8"))["steps"]
    assert len(Presentation(str(tmp_path / "score-grid.en.pptx")).slides) == 1 + len(steps)
    reader = PdfReader(str(tmp_path / "score-grid.en.pdf"))
    assert len(reader.pages) == len(steps)
    spec = specs()["score-grid"]
    assert [m.title for m in reader.outline] == [f"{spec.section} {spec.heading('en')}"]
    assert steps[0]["caption"].split()[0] in reader.pages[0].extract_text()
    fonts = reader.pages[0]["/Resources"]["/Font"].values()
    assert "NotoSans" in {f.get_object()["/BaseFont"].split("+")[-1] for f in fonts}
    assert uncovered(steps) == []


def test_a_re_rendered_step_gets_a_new_poster(tiny_chapter, tmp_path):
    for name in ("weighted-average.numbers.json", "weighted-average.sections"):
        copy = shutil.copytree if (tiny_chapter / name).is_dir() else shutil.copy
        copy(tiny_chapter / name, tmp_path / name)
    write_deck(tmp_path, "pptx", "zh", "weighted-average")
    videos = sorted((tmp_path / "weighted-average.sections").glob("*.mp4"))
    new = frames(videos[1])[1]
    assert not np.array_equal(frames(videos[0])[1], new)
    shutil.copy(videos[1], videos[0])                    # step 1 rendered anew, as a changed clip is
    slide = Presentation(str(write_deck(tmp_path, "pptx", "zh", "weighted-average"))).slides[1]
    movie = next(s for s in slide.shapes if s.shape_type == MSO_SHAPE_TYPE.MEDIA)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(movie.poster_frame.blob)).convert("RGB")), new)


def test_a_failed_write_keeps_the_last_file_whole(decks, monkeypatch):
    target = write_deck(decks, "pdf", "zh", "score-grid")
    before = target.read_bytes()

    def half(self, name):
        open(name, "wb").write(b"%PDF-1.4 half")
        raise OSError("disk full")
    monkeypatch.setattr(deck_pdf.FPDF, "output", half)
    with pytest.raises(OSError, match="disk full"):
        write_deck(decks, "pdf", "zh", "score-grid")
    assert target.read_bytes() == before and not list(decks.glob(".*.part"))


@pytest.mark.parametrize("args", [["chapter", "--deck", "foo"], ["dropout", "--deck", "pptx:grid"],
                                  ["dropout", "--deck", "pdf", "--format", "png"],
                                  ["dropout", "--deck", "pptx", "--dry-run"]])
def test_a_bad_deck_is_one_line_exit_2_and_writes_nothing(tmp_path, args):
    code, out = cli(*args, "--out", tmp_path / "out")
    assert code == 2 and len(out.strip().splitlines()) == 1 and "--deck" in out, out
    assert not (tmp_path / "out").exists()
