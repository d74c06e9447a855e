"""The chapter's maths, in float64 numpy. No Manim here: scenes ask, this answers.

One module per section (scores, masking, dropout, heads, ...). A clip imports the
modules it uses (`from scenes.compute import masking`), so the chapter's reuse
stamps know which clips a change touches. `compute.softmax` also works when exactly one
section module defines the name.

Layout follows PyTorch and the book: rows are queries, columns are keys,
softmax runs along the last axis unless told otherwise.
"""
import importlib
import pkgutil


def __getattr__(name):
    found = []
    for info in pkgutil.iter_modules(__path__):
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, name) and not name.startswith("_"):
            found.append((info.name, getattr(module, name)))
    if len(found) == 1:
        return found[0][1]
    if found:   # defined in several sections: never guess which one was meant
        raise AttributeError(f"scenes.compute.{name} is in {', '.join(m for m, _ in found)}: "
                             f"import the section module")
    raise AttributeError(f"scenes.compute has no {name!r}")
