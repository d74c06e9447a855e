"""Cheap animations. Manim's FadeIn/FadeOut deep-copy the whole mobject (twice for
FadeIn) before the first frame; for grids of Text that copy costs more than the
frames. These fade by scaling each part's opacity in place: no copy at all."""
from typing import Any

import numpy as np
from manim import Animation, Mobject


class Appear(Animation):
    """Fade in (or, with vanish=True, fade out and remove) without copying."""

    def __init__(self, mobject, vanish=False, run_time=1.0, **kwargs):
        self.vanish = vanish
        super().__init__(mobject, run_time=run_time, introducer=not vanish, remover=vanish, **kwargs)

    def create_starting_mobject(self) -> Mobject:
        return Mobject()          # nothing to copy: interpolate works from saved opacities

    def begin(self) -> None:
        self.parts = [m for m in self.mobject.family_members_with_points()]
        self.fills = [np.array(m.fill_rgbas[:, 3]) for m in self.parts]
        self.strokes = [np.array(m.stroke_rgbas[:, 3]) for m in self.parts]
        super().begin()

    def interpolate_mobject(self, alpha: float) -> None:
        a = self.rate_func(alpha)
        a = 1 - a if self.vanish else a
        for m, fill, stroke in zip(self.parts, self.fills, self.strokes):
            m.fill_rgbas[:, 3] = fill * a
            m.stroke_rgbas[:, 3] = stroke * a

    def clean_up_from_scene(self, scene: Any) -> None:
        super().clean_up_from_scene(scene)
        for m, fill, stroke in zip(self.parts, self.fills, self.strokes):
            m.fill_rgbas[:, 3] = fill
            m.stroke_rgbas[:, 3] = stroke


def Vanish(mobject: Mobject, **kwargs: Any) -> Appear:
    return Appear(mobject, vanish=True, **kwargs)
