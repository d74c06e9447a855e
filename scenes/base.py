"""ClipScene: a Scene that takes checked inputs, shows numbers through a
NumberBook and plays captioned steps (each caption is one subtitle)."""
from manim import (AnimationGroup, Create, FadeIn, FadeOut, GrowArrow, GrowFromCenter, LaggedStart,
                   ReplacementTransform, Scene, Succession, Transform, Write, config)
from manim.animation.animation import prepare_animation
from manim.utils.exceptions import EndSceneEarlyException

from scenes import style
from scenes.anim import Appear, Vanish
from scenes.clip_inputs import check
from scenes.inputs import raw_inputs
from scenes.mobjects import caption_text
from scenes.numbers import NumberBook


class ClipScene(Scene):
    clip = ""                # the CLI name, e.g. "weighted-average"
    section = ""             # the book's section, e.g. "4.1"
    title = ""               # the section's title, as the book words it

    def __init__(self, inputs=None, stop_after_step=None, **kwargs):
        # Plain `manim scenes/x.py X` gets the clip's default preset.
        self.inputs = inputs if inputs is not None else check(self.clip, raw_inputs(self.clip))
        self.stop_after_step = stop_after_step
        super().__init__(**kwargs)
        # No frames wanted until the end (dry run, still): jump to each animation's end state.
        self.fast = self.renderer.skip_animations or config.format in ("png", "none")

    def setup(self):
        self.camera.background_color = style.BACKGROUND
        self.book = NumberBook()
        self.captions = []   # [start, end, text] per step, in seconds
        self._caption = None
        self.result = self.compute()
        self.show_title()

    def compute(self):
        """Ask the compute module for everything the clip shows."""
        raise NotImplementedError

    def show_title(self):
        head = self.book.fmt("section", float(self.section), 1)
        self.title_mob = self.book.label(f"{head}  {self.title}", size=style.TITLE_SIZE)
        self.title_mob.move_to([0, style.TITLE_Y, 0])
        self.add(self.title_mob)

    def step(self, text):
        """Start a step: close the previous one (pause, end its subtitle), show this caption."""
        self._close_step()
        if self.stop_after_step is not None and len(self.captions) >= self.stop_after_step:
            raise EndSceneEarlyException()
        self.next_section(f"step-{len(self.captions) + 1}")
        new = caption_text(self.book, text)
        if self._caption is None:
            self.play(Appear(new), run_time=0.4)
        else:
            self.play(Transform(self._caption, new), run_time=0.4)
            new = self._caption
        self._caption = new
        self.captions.append([self.renderer.time, None, text])

    def _close_step(self):
        if self.captions and self.captions[-1][1] is None:
            self.wait(style.STEP_PAUSE)
            self.captions[-1][1] = self.renderer.time

    def end(self):
        """Call at the end of construct: the last step's pause and subtitle end."""
        self._close_step()

    def clear_stage(self, run_time=0.5):
        """Fade out everything but the title and caption."""
        keep = {id(self.title_mob), id(self._caption)}
        gone = [m for m in self.mobjects if id(m) not in keep]
        if gone:
            self.play(*[Vanish(m) for m in gone], run_time=run_time)

    # -- fast path: the scene's end states without interpolating any frame
    def play(self, *args, run_time=None, **kwargs):
        if not self.fast:
            if run_time is not None:
                kwargs["run_time"] = run_time
            return super().play(*args, **kwargs)
        anims = [prepare_animation(a) for a in args]
        for anim in anims:
            self._finish_now(anim)
        self.renderer.num_plays += 1
        self.renderer.time += run_time if run_time is not None else max(a.run_time for a in anims)

    def wait(self, duration=1.0, **kwargs):
        if not self.fast:
            return super().wait(duration, **kwargs)
        self.renderer.time += duration

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
            if kind is ReplacementTransform:
                self.remove(anim.mobject)
                self.add(anim.target_mobject)
            else:
                anim.mobject.become(anim.target_mobject)
        else:
            anim._setup_scene(self)
            anim.begin()
            anim.finish()
            anim.clean_up_from_scene(self)
