"""--deck: write a deck or handout from what is rendered (scenes/pipeline/present/deck.py).

    write(out, "pptx", "zh")                 OUT/chapter04.pptx, every clip in book order
    write(out, "pdf", "en", "dropout")       OUT/dropout.en.pdf
    write(out, "pdf:grid", "zh")             OUT/chapter04.grid.pdf, four steps a page
"""
from __future__ import annotations

from pathlib import Path

from scenes.kit.text.lang import SOURCE
from scenes.pipeline.present.pdf import write_pdf
from scenes.pipeline.present.pptx import write_pptx

KINDS = ("pptx", "pdf", "pdf:grid")


def write(out: str | Path, kind: str, lang: str = SOURCE, clip: str | None = None) -> Path:
    """OUT/NAME.pptx, NAME.pdf or NAME.grid.pdf (kind: pptx, pdf, pdf:grid) from rendered steps."""
    if kind not in KINDS:
        raise ValueError(f"unknown deck {kind!r}: one of {', '.join(KINDS)}")
    if kind == "pptx":
        return write_pptx(Path(out), lang, clip)
    return write_pdf(Path(out), lang, clip, grid=kind == "pdf:grid")
