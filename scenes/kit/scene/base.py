"""ClipScene: a Scene that takes checked inputs, shows numbers through a
NumberBook and plays captioned steps (each caption is one subtitle).

A clip is a subclass with `spec = Clip(...)` (scenes/pipeline/jobs/registry.py): the
registry finds it, and nothing else needs to know that it exists.
"""
from __future__ import annotations

from typing import Any

from manim import (AnimationGroup, Create, FadeIn, FadeOut, GrowArrow, GrowFromCenter, LaggedStart,
                   ReplacementTransform, Scene, Succession, Transform, Write, config)
from manim.animation.animation import prepare_animation
from manim.utils.exceptions import EndSceneEarlyException

from scenes.kit.text import bounds, lang, style  # noqa: F401  (bounds: faster boxes, same numbers)
from scenes.kit.draw.anim import Appear, Vanish
from scenes.kit.text.layout import caption_text, snapshot
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.scene.carried import Continuity, mark_carried
from scenes.kit.scene.clip import Clip


def reaches(mob: Any, removing: set) -> bool:
    """Whether mob or any mobject under it is in `removing`."""
    if not removing:
        return False
    todo = [mob]
    while todo:
        m = todo.pop()
        if m in removing:
            return True
        todo.extend(m.submobjects)
    return False


class ClipScene(Continuity, Scene):
    spec: Clip               # declared by each clip (name, section, title, rules, defaults, options)
    capture_frames = False   # tests set it: keep each step's last frame in self.frames

    def __init__(self, inputs: dict | None = None, stop_after_step: int | None = None,
                 pace: str = "normal", recordings: dict[int, tuple[str, float]] | None = None,
                 **kwargs: Any) -> None:
        """recordings: step number -> (audio file, seconds); each step lasts at least its recording."""
        # Plain `manim scenes/clips/x.py X` gets the clip's declared defaults.
        if inputs is None:
            inputs = self.spec.default_inputs()
        self.inputs = inputs
        self.stop_after_step = stop_after_step
        self.pace = pace
        self.recordings = recordings or {}
        super().__init__(**kwargs)
        # No frames wanted until the end (dry run, still): jump to each animation's end state.
        self.fast = self.renderer.skip_animations or config.format in ("png", "none")

    def setup(self) -> None:
        self.camera.background_color = style.BACKGROUND
        self.book = NumberBook()
        self.captions: list[list[Any]] = []   # [start, end, text] per step, in seconds
        self.layout: list[dict[str, Any]] = []  # what is on screen at the end of each step
        self.frames: list[Any] = []
        self.narration: dict[int, str] = {}      # step -> what the lecturer says (script.md, voice)
        self._caption = None
        self.continuity()
        self.result = self.compute()
        self.book.sources = self.provenance()
        self.book.says = self.kinds()
        self.show_title()

    def compute(self) -> Any:
        """Ask the compute module for everything the clip shows."""
        raise NotImplementedError

    def provenance(self) -> dict:
        """Label -> where it comes from (scenes/compute/provenance.py), for the manifest's
        `from` and `op`; none unless the clip says."""
        return {}

    def kinds(self) -> dict:
        """Label pattern -> ("given", option) for a number that shows an input under a label of its
        own, or ("const", why) for a constant, where the book's rules (provenance.kind) do not say."""
        return {}

    def show_title(self) -> None:
        head = self.book.section("section", self.spec.section)
        consts = [self.book.const(c) for c in self.spec.title_consts]
        self.title_mob = self.book.text("{}  " + lang.tr(self.spec.title), head, *consts, size=style.TITLE_SIZE,
                                        kind="title")
        self.title_mob.move_to([0, style.TITLE_Y, 0])
        self.add(self.title_mob)

    def step(self, template: str, *slots: Shown, **named: Shown) -> None:
        """Start a step: close the previous one (pause, end its subtitle), show this caption.

        The caption is a digit-free template whose {} slots the book filled."""
        self._close_step()
        if self.stop_after_step is not None and len(self.captions) >= self.stop_after_step:
            raise EndSceneEarlyException()
        self.book.step = len(self.captions) + 1
        self.next_section(f"step-{self.book.step}")
        text = self.book.compose(template, *slots, **named)
        new = caption_text(self.book, text)
        # changes with the picture, in the next play: the old sentence fades out as the new one
        # fades in in its place (a morph of one sentence's glyphs into another's is garbled mid-way)
        self._pending = [Appear(new, run_time=0.4)]
        if self._caption is not None:
            self._pending.insert(0, Vanish(self._caption, run_time=0.4))
        self._caption = new
        self.captions.append([self.renderer.time, None, str(text)])
        if self.book.step in self.recordings and not self.fast:
            self.add_sound(self.recordings[self.book.step][0])

    def narrate(self, template: str, *slots: Shown, **named: Shown) -> None:
        """What the lecturer says in this step (two to four sentences carrying the book's
        explanation); its numbers come from the book like every drawn one."""
        text = self.book.compose(template, *slots, **named)
        self.book.spoken.update(text.labels)
        n = len(self.captions)
        gap = "" if lang.current == lang.SOURCE else " "      # Chinese sentences join without a space
        self.narration[n] = (self.narration.get(n, "") + gap + str(text)).strip()

    def _close_step(self) -> None:
        """End the current step: record its layout, then hold it long enough to be read
        (and heard: its recording, if any), never less than the lecturer's pause."""
        if self.captions and self.captions[-1][1] is None:
            self._transition()
            self.settle()
            n = len(self.captions)
            self.layout.append(mark_carried(self, snapshot(self, self.book, n)))
            start, _, caption = self.captions[-1]
            new = sum(1 for r in self.book.records if r["step"] == n)
            needed = style.reading_seconds(caption, new, self.pace)
            if n in self.recordings:
                needed = max(needed, self.recordings[n][1] + style.VOICE_TAIL)
            self.wait(max(style.STEP_PAUSE, needed - (self.renderer.time - start)))
            self.captions[-1][1] = self.renderer.time
            if self.capture_frames:        # tests: the frame a still of this step would show
                self.renderer.update_frame(self, ignore_skipping=True)
                self.frames.append(self.renderer.get_frame().copy())

    def end(self) -> None:
        """Call at the end of construct: the last step's pause and subtitle end."""
        self._close_step()

    def storyboard(self, *steps: Any) -> None:
        """construct's body: the clip's step methods in order, then end(). A render that stops
        after step N (a still, a step job) stops before the first method begun past it, so that
        nothing of the later steps is built; step() stops one inside a method."""
        for step in steps:
            if self.stop_after_step is not None and len(self.captions) >= self.stop_after_step:
                break
            step()
        self.end()

    def clear_stage(self, keep: Any = ()) -> None:
        """The board gives way to the next picture (all but the title, caption and `keep`): it
        fades while the next play brings the new one, items on both moving to their new places."""
        self.leave([m for m in self.mobjects if m not in (self.title_mob, self._caption, *keep)])

    def play(self, *args: Any, run_time: float | None = None, **kwargs: Any) -> None:
        self.morphed(args)
        if not self._joined and (self._pending or self._leaving or self._standing):
            return self._transition(list(args), run_time, **kwargs)
        if not self.fast:
            if run_time is not None:
                kwargs["run_time"] = run_time
            return super().play(*args, **kwargs)
        self._play_now([prepare_animation(a) for a in args], run_time)

    def _play_now(self, anims: list, run_time: float | None = None) -> None:
        """Prepared animations, each at its own run time (or `run_time`)."""
        if not self.fast:
            return super().play(*anims, **({} if run_time is None else {"run_time": run_time}))
        # fast path: the scene's end states without interpolating any frame
        for anim in anims:
            self._finish_now(anim)
        self.renderer.num_plays += 1
        self.renderer.time += run_time if run_time is not None else max(a.run_time for a in anims)

    def wait(self, duration: float = 1.0, **kwargs: Any) -> None:
        if self._pending or self._leaving:
            self._transition()
        if not self.fast:
            return super().wait(duration, **kwargs)
        self.renderer.time += duration

    def get_restructured_mobject_list(self, mobjects: Any, to_remove: Any) -> list:
        """Manim's (what stays on screen when `to_remove` goes, a group of it dissolved into its
        other parts), with a quicker test of each mobject: Manim lists every family whole to
        intersect it, here a walk stops at the first member removed (`reaches`); the same list."""
        kept: list = []

        def keep(found: Any, removing: set) -> None:
            for mob in found:
                if mob in removing:
                    continue
                if reaches(mob, removing):
                    keep(mob.submobjects, removing.intersection(mob.get_family()))
                else:
                    kept.append(mob)
        keep(mobjects, set(to_remove))
        return kept

    def _finish_now(self, anim):
        """The state an animation leaves, cheaply for the common kinds, exactly for the rest."""
        kind = type(anim)
        if kind in (AnimationGroup, LaggedStart, Succession):
            for sub in anim.animations:
                self._finish_now(sub)
        elif kind in (FadeIn, Write, Create, GrowArrow, GrowFromCenter) or (kind is Appear and not anim.vanish):
            if anim.mobject not in self.mobjects:
                self.add(anim.mobject)
        elif kind is FadeOut or kind is Appear:
            self.remove(anim.mobject)
        elif kind in (Transform, ReplacementTransform) and anim.target_mobject is not None:
            if kind is ReplacementTransform and anim.mobject in self.mobjects:
                self.replace(anim.mobject, anim.target_mobject)     # its place in the drawing order, as Manim
            elif kind is ReplacementTransform:
                self.remove(anim.mobject)
                self.add(anim.target_mobject)
            else:
                anim.mobject.become(anim.target_mobject)
        else:
            anim._setup_scene(self)
            anim.begin()
            anim.finish()
            anim.clean_up_from_scene(self)
