"""The tiny chapter's deck as the office programs read it. The zip is whole in the ways PowerPoint's
repair prompt checks (every part has a content type, every relationship and every r:id in a part
resolves, media typed as what they are). LibreOffice Impress (run.sh setup installs it) converts
it without error: each step's page carries the step's last frame as its one image, drawn where
the movie is, and its caption as text; each section's title page its title; and LibreOffice reads
each step's movie as a media effect that starts with the slide."""
import io
import posixpath
import re
import shutil
import subprocess
import zipfile
from collections import Counter
from xml.etree import ElementTree

import numpy as np
import pytest
from PIL import Image
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from pptx.util import Inches
from pypdf import PdfReader

from scenes.pipeline.present.deck import poster
from scenes.pipeline.present.pptx import play_on_entry
from scenes.pipeline.present.decks import write as write_deck
from test_deck import frames, sections_of

REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
MEDIA = {"mp4": "video/mp4", "png": "image/png"}
ODF = {"draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
       "anim": "urn:oasis:names:tc:opendocument:xmlns:animation:1.0",
       "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
       "smil": "urn:oasis:names:tc:opendocument:xmlns:smil-compatible:1.0",
       "xml": "http://www.w3.org/XML/1998/namespace"}


@pytest.fixture(scope="module")
def deck(tiny_chapter):
    return write_deck(tiny_chapter, "pptx", "zh")


@pytest.fixture(scope="module")
def office(tmp_path_factory):
    """soffice(file, "pdf" | "odp") -> the converted file, through one LibreOffice profile."""
    assert shutil.which("soffice") and shutil.which("pdftoppm"), \
        "LibreOffice Impress or poppler-utils is missing: bash run.sh setup installs them"
    folder = tmp_path_factory.mktemp("office")

    def soffice(source, kind):
        done = subprocess.run(["soffice", "--headless", "--norestore",
                               f"-env:UserInstallation={(folder / 'profile').as_uri()}",
                               "--convert-to", kind, "--outdir", str(folder), str(source)],
                              capture_output=True, text=True, timeout=300)
        target = folder / f"{source.stem}.{kind}"
        assert done.returncode == 0 and target.exists() and "Error" not in done.stdout + done.stderr, \
            done.stdout + done.stderr
        return target
    return soffice


def package_faults(path):
    """What PowerPoint would repair: parts without a content type (or media typed as something
    else), overrides and relationships naming absent parts, ids given twice, r:ids in a part that
    its relationships do not define (the empty id PowerPoint itself writes on a media link aside)."""
    faults = []
    with zipfile.ZipFile(path) as box:
        names = box.namelist()
        faults += [f"{n} twice in the zip" for n in sorted(set(names)) if names.count(n) > 1]
        parts = set(names) - {"[Content_Types].xml"}
        types = ElementTree.fromstring(box.read("[Content_Types].xml"))
        defaults = {t.get("Extension").lower(): t.get("ContentType") for t in types
                    if t.tag.endswith("Default")}
        overrides = {t.get("PartName").lstrip("/"): t.get("ContentType") for t in types
                     if t.tag.endswith("Override")}
        faults += [f"an override names the absent {n}" for n in sorted(overrides) if n not in parts]
        for name in sorted(parts):
            suffix = name.rsplit(".", 1)[-1].lower()
            kind = overrides.get(name) or defaults.get(suffix)
            if kind is None:
                faults.append(f"{name} has no content type")
            elif name.startswith("ppt/media/") and kind != MEDIA.get(suffix):
                faults.append(f"{name} is typed {kind}")
        for name in sorted(parts):
            if name.endswith(".rels"):
                continue
            folder, file = posixpath.split(name)
            rels = posixpath.join(folder, "_rels", f"{file}.rels")
            ids = []
            for rel in ElementTree.fromstring(box.read(rels)) if rels in parts else []:
                ids.append(rel.get("Id"))
                target = rel.get("Target")
                if rel.get("TargetMode") != "External":
                    part = target.lstrip("/") if target.startswith("/") else \
                        posixpath.normpath(posixpath.join(folder, target))
                    if part not in parts:
                        faults.append(f"{rels}: {rel.get('Id')} -> {target}, absent")
            faults += [f"{rels}: {i} twice" for i in sorted(set(ids)) if ids.count(i) > 1]
            if name.endswith(".xml"):
                used = {v for el in ElementTree.fromstring(box.read(name)).iter()
                        for k, v in el.attrib.items() if k.startswith(REL)}
                faults += [f"{name}: r:id {u} has no relationship" for u in sorted(used - set(ids) - {""})]
    return faults


def rewrite(source, target, drop=(), change=None):
    """A copy of the zip without the parts in `drop`, with change[name](bytes) applied."""
    with zipfile.ZipFile(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for item in old.infolist():
            if item.filename not in drop:
                data = old.read(item.filename)
                new.writestr(item, (change or {}).get(item.filename, lambda b: b)(data))
    return target


def test_the_deck_is_a_whole_package(deck):
    assert package_faults(deck) == []


def test_the_package_check_finds_each_planted_fault(deck, tmp_path):
    types = "[Content_Types].xml"
    slide = Presentation(str(deck)).slides[1]
    slide_part = str(slide.part.partname).lstrip("/")
    poster_id = next(r for r, rel in slide.part.rels.items() if rel.reltype.endswith("/image"))
    video = next(str(rel.target_part.partname).lstrip("/") for rel in slide.part.rels.values()
                 if rel.reltype.endswith("/video"))
    planted = {
        "absent": ({video}, {}),
        "no content type": ((), {types: lambda b: re.sub(rb'<Default Extension="mp4"[^>]*/>', b"", b)}),
        "is typed": ((), {types: lambda b: b.replace(b'ContentType="video/mp4"',
                                                     b'ContentType="application/octet-stream"')}),
        "an override names": ((), {types: lambda b: b.replace(b"</Types>", b'<Override PartName='
                                  b'"/ppt/slides/slide999.xml" ContentType="application/xml"/></Types>')}),
        "has no relationship": ((), {slide_part: lambda b: b.replace(f'r:embed="{poster_id}"'.encode(),
                                                                      b'r:embed="rId99"')}),
    }
    for n, (fault, (drop, change)) in enumerate(planted.items()):
        found = package_faults(rewrite(deck, tmp_path / f"{n}.pptx", drop, change))
        assert any(fault in f for f in found), (fault, found)


def test_libreoffice_converts_it_showing_each_steps_poster_and_title(deck, tiny_chapter, office, tmp_path):
    converted = office(deck, "pdf")
    prs = Presentation(str(deck))
    assert len(PdfReader(str(converted)).pages) == len(prs.slides)
    texts = subprocess.run(["pdftotext", "-raw", str(converted), "-"], capture_output=True, text=True,
                           check=True, timeout=120).stdout.split("\f")
    subprocess.run(["pdfimages", "-p", "-png", str(converted), str(tmp_path / "image")], check=True,
                   timeout=120)
    subprocess.run(["pdftoppm", "-r", "48", "-gray", "-png", str(converted), str(tmp_path / "page")],
                   check=True, timeout=120)
    pages = sorted(tmp_path.glob("page-*.png"))
    steps = iter([st for _, _, part in sections_of(tiny_chapter) for st in part])
    shown, teeth = [], 0
    for n, slide in enumerate(prs.slides, 1):
        assert glyphs(slide.shapes.title.text) <= glyphs(texts[n - 1])   # (subscripts come out of line)
        images = sorted(tmp_path.glob(f"image-{n:03d}-*.png"))
        movie = next((s for s in slide.shapes if s.shape_type == MSO_SHAPE_TYPE.MEDIA), None)
        if movie is None:                                        # a section's title page
            assert images == []
            continue
        first, last = frames(next(steps)["video"])
        assert len(images) == 1
        image = Image.open(images[0]).convert("RGB")
        assert image.size == (last.shape[1], last.shape[0])                     # the poster, kept whole
        assert np.abs(smooth(image) - smooth(last)).mean() < 3                  # (JPEG's noise averaged)
        teeth += np.abs(smooth(image) - smooth(first)).mean() > 3               # the first frame would fail
        page = Image.open(pages[n - 1])
        sx, sy = page.width / prs.slide_width, page.height / prs.slide_height
        region = page.crop((round(movie.left * sx), round(movie.top * sy),
                            round((movie.left + movie.width) * sx), round((movie.top + movie.height) * sy)))
        shown.append((blocks(region), blocks(Image.open(io.BytesIO(movie.poster_frame.blob)))))
    assert next(steps, None) is None and teeth > len(shown) // 2
    for k, (region, own) in enumerate(shown):                   # drawn where the movie is
        assert correlation(region, own) > 0.9
        other = shown[k - 1 if k else 1][1]                     # a neighbouring step's poster
        if not np.array_equal(other, own):
            assert correlation(region, other) < correlation(region, own)


def glyphs(text):
    return Counter(c for c in text if not c.isspace())


def smooth(image):
    """An RGB frame as 128 x 72 block means."""
    image = image if isinstance(image, Image.Image) else Image.fromarray(image)
    return np.asarray(image.resize((128, 72), Image.Resampling.BOX), dtype=float)


def blocks(image, size=(64, 36)):
    return np.asarray(image.convert("L").resize(size, Image.Resampling.BOX), dtype=float).ravel()


def correlation(a, b):
    return float(np.corrcoef(a, b)[0, 1])


def odf(name):
    """'draw:page' as ElementTree spells it."""
    prefix, local = name.split(":")
    return f"{{{ODF[prefix]}}}{local}"


def autoplaying(odp):
    """Per page of an ODP: does it have a movie, and is each movie played by a media effect of the
    main sequence that starts after the previous one (the slide's start), not on a click?"""
    with zipfile.ZipFile(odp) as box:
        content = ElementTree.fromstring(box.read("content.xml"))
    pages = []
    for page in content.iter(odf("draw:page")):
        movies = {f.get(odf("xml:id")) for f in page.iter(odf("draw:frame"))
                  if f.find(odf("draw:plugin")) is not None}
        played = set()
        for seq in page.iter(odf("anim:seq")):
            if seq.get(odf("presentation:node-type")) != "main-sequence":
                continue
            for effect in seq.iter(odf("anim:par")):
                if effect.get(odf("presentation:node-type")) in ("after-previous", "with-previous"):
                    played |= {c.get(odf("smil:targetElement")) for c in effect.iter(odf("anim:command"))
                               if c.get(odf("anim:command")) == "play"}
        pages.append((bool(movies), bool(movies) and movies <= played))
    return pages


def test_libreoffice_reads_each_steps_movie_as_playing_when_the_slide_starts(deck, office):
    prs = Presentation(str(deck))
    pages = autoplaying(office(deck, "odp"))
    assert len(pages) == len(prs.slides)
    steps = [any(s.shape_type == MSO_SHAPE_TYPE.MEDIA for s in slide.shapes) for slide in prs.slides]
    assert pages == [(step, step) for step in steps]


def test_the_autoplay_check_fails_a_movie_left_to_play_on_click(tiny_chapter, office, tmp_path):
    video = sorted((tiny_chapter / "dropout.sections").glob("*.mp4"))[0]
    prs = Presentation()
    for entry in (True, False):
        slide = prs.slides.add_slide(prs.slide_layouts[6])
        movie = slide.shapes.add_movie(str(video), 0, 0, Inches(4), Inches(2.25), mime_type="video/mp4",
                                       poster_frame_image=str(poster(video)))
        if entry:
            play_on_entry(slide, movie, 1.0)
    prs.save(str(tmp_path / "two.pptx"))
    assert autoplaying(office(tmp_path / "two.pptx", "odp")) == [(True, True), (True, False)]
