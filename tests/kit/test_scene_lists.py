"""ClipScene.get_restructured_mobject_list (scenes/kit/scene/base.py) is Manim's own, a quicker test
inside: on random trees of groups, removing random members anywhere in them, the scene keeps
the same mobjects in the same order as Manim's Scene would."""
import random
import sys
from pathlib import Path

from manim import Scene, VGroup, VMobject

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from scenes.kit.scene.base import ClipScene  # noqa: E402


def tree(rng, depth):
    if depth == 0 or rng.random() < 0.3:
        return VMobject()
    return VGroup(*[tree(rng, depth - 1) for _ in range(rng.randint(1, 4))])


def test_the_same_list_as_manim():
    rng = random.Random(5)
    for _ in range(300):
        roots = [tree(rng, 4) for _ in range(rng.randint(1, 5))]
        everyone = [m for r in roots for m in r.get_family()]
        shared = rng.choice(everyone)                      # a mobject in two places
        roots.append(VGroup(shared)) if rng.random() < 0.3 else None
        removed = rng.sample(everyone, rng.randint(0, min(4, len(everyone))))
        if rng.random() < 0.2:
            removed.append(VMobject())                     # one that is not on screen
        ours = ClipScene.get_restructured_mobject_list(None, list(roots), removed)
        theirs = Scene.get_restructured_mobject_list(None, list(roots), removed)
        assert [id(m) for m in ours] == [id(m) for m in theirs]
