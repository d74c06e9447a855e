"""--deck: write a deck or handout from what is rendered (scenes/pipeline/present/deck.py).

    write(out, "pptx", "zh")                 OUT/chapter04.pptx, every clip in book order
    write(out, "pdf", "en", "dropout")       OUT/dropout.en.pdf
    write(out, "pdf:grid", "zh")             OUT/chapter04.grid.pdf, three steps a page
    write(out, "pdf:dark", "zh")             OUT/chapter04.dark.pdf, the frames as the video draws them

A handout's frames are drawn for paper, in the light theme unless :dark is asked for.
"""
from __future__ import annotations

from pathlib import Path

from scenes.kit.text.lang import SOURCE
from scenes.pipeline.present.pdf import write_pdf
from scenes.pipeline.present.pptx import write_pptx

KINDS = ("pptx", "pdf", "pdf:grid", "pdf:dark", "pdf:grid:dark")


def write(out: str | Path, kind: str, lang: str = SOURCE, clip: str | None = None,
          given: dict | None = None) -> Path:
    """OUT/NAME.pptx, NAME.pdf or NAME.grid.pdf (kind: pptx, pdf, pdf:grid; pdf:dark, pdf:grid:dark:
    NAME.dark.pdf, NAME.grid.dark.pdf) from rendered steps; given: clip -> the raw inputs it was
    rendered from, where not the book's or its course's."""
    if kind not in KINDS:
        raise ValueError(f"unknown deck {kind!r}: one of {', '.join(KINDS)}")
    if kind == "pptx":
        return write_pptx(Path(out), lang, clip)
    parts = kind.split(":")
    return write_pdf(Path(out), lang, clip, grid="grid" in parts, theme="dark" if "dark" in parts else "light",
                     given=given)
