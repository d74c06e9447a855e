"""The chapter's maths, in float64 numpy. No Manim here: scenes ask, this answers.

Layout follows PyTorch and the book: rows are queries, columns are keys,
softmax runs along the last axis unless told otherwise.
"""
from scenes.compute.dropout import *  # noqa: F401,F403
from scenes.compute.heads import *  # noqa: F401,F403
from scenes.compute.masking import *  # noqa: F401,F403
from scenes.compute.scores import *  # noqa: F401,F403
