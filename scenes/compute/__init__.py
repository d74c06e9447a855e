"""The chapter's maths, in float64 numpy. No Manim here: scenes ask, this answers.

One module per section (scores, masking, dropout, heads, ...). A clip imports the section
modules it uses (`from scenes.compute import masking`), so the chapter's reuse stamps know
which clips a change touches; the package itself exports nothing.

Layout follows PyTorch and the book: rows are queries, columns are keys,
softmax runs along the last axis unless told otherwise.
"""
