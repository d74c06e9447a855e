"""Text and numbers: the palette and sizes (style), the catalogues and a clip's words (lang), the
NumberBook every drawn number goes through (numbers), the glyph sets and their caches (glyphs,
textcache, drawcache, bounds) and the layout record the proof reads (layout). The lowest layer of
the kit: it imports only compute, Manim and the standard library.
"""
