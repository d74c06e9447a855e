"""The drawing kit: everything a clip draws with, in layers that import only downwards:
text (numbers, glyphs, style, catalogues, the layout record) <- draw (grids, tables, bars,
pictures) <- page (the page engine and its blocks) <- motion (derivations) <- compose (whole
boards, sheets, quizzes) <- scene (ClipScene, a clip's declaration, input rules). The kit
imports compute, never clips or the pipeline; tests/kit/test_layers.py enforces the order.
"""
