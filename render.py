#!/usr/bin/env python3
"""Render the chapter-4 lecture clips (self-attention and the causal mask).

  python render.py list                      one line per clip and preset
  python render.py NAME [inputs] [options]   render one clip
  python render.py chapter [options]         every clip, in book order
  python render.py chapter --lang zh,en --quality high,4k --workers 2    every variant, on dask
  python render.py lab [--port 8765]         a local web page per clip (the lab; --theme light)

Exit codes: 0 done, 2 bad input (nothing written), 1 render failure.
"""
from __future__ import annotations

import gc
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable, NoReturn

import click

from scenes.kit.text.lang import LANGS, SOURCE, MissingTranslation
from scenes.kit.text import style
from scenes.kit.text.style import PACES, THEMES
from scenes.pipeline.jobs.job import FORMATS, QUALITIES, RenderJob, quality_help
from scenes.pipeline.jobs.registry import Declared, declarations

DECK_OPTION = click.option("--deck", type=click.Choice(["pptx", "pdf", "pdf:grid", "pdf:dark", "pdf:grid:dark"]),
                           multiple=True,
                           help="also a deck from the step videos (implies --sections): pptx (NAME.pptx), pdf "
                                "(NAME.pdf, a handout for paper: its frames in the light theme, :dark in the "
                                "video's) or pdf:grid (NAME.grid.pdf, three a page); repeatable")
OUT_OPTION = click.option("--out", default="media", show_default=True, help="output folder")
SCHEDULER = re.compile(r"(tcp|tls)://(\[[0-9A-Fa-f:]+\]|[A-Za-z0-9.-]+):(\d{1,5})")


class CommaList(click.ParamType):
    """One or more of `choices`, comma-separated (`zh,en`), as a tuple in the order given."""
    name = "list"

    def __init__(self, choices: list[str], example: str) -> None:
        self.choices, self.example = choices, example

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str:
        return "[" + "|".join(self.choices) + "],..."

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> tuple[str, ...]:
        if isinstance(value, tuple):
            return value
        items = [v.strip() for v in str(value).split(",")]
        for item in items:
            if item not in self.choices:
                self.fail(f"{item!r} is not one of {', '.join(self.choices)} (several: comma-separated, "
                          f"{self.example})", param, ctx)
        return tuple(dict.fromkeys(items))


def apply_theme(theme: str) -> None:
    """`theme` in force in this process and in the renders it starts (scenes/kit/text/style.py)."""
    style.use(theme)
    os.environ[style.THEME_VARIABLE] = theme


def use_theme(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None:
        apply_theme(value)
    return value


def theme_option(course: bool = False) -> Callable:
    return click.option("--theme", type=click.Choice(list(THEMES)), default=None, callback=use_theme,
                        expose_value=course, is_eager=True,
                        help="colours: dark (the default, the video's look) or light (bright rooms, paper)"
                             + ("; the course's theme unless given" if course else ""))


def quality_option(many: bool = False) -> Callable:
    """--quality, from the one quality table (scenes/pipeline/jobs/job.py); `many`: a comma list."""
    kind = CommaList(list(QUALITIES), "high,4k") if many else click.Choice(list(QUALITIES))
    more = "; several, comma-separated (high,4k): each in OUT/QUALITY/" if many else ""
    return click.option("--quality", type=kind, default="high", show_default=True, help=quality_help() + more)


def lang_option(many: bool = False) -> Callable:
    kind = CommaList(list(LANGS), "zh,en") if many else click.Choice(list(LANGS))
    return click.option("--lang", type=kind, default=SOURCE, show_default=True,
                        help="language of every word on screen and in the script (en: NAME.en.mp4)"
                             + ("; several, comma-separated (zh,en)" if many else ""))


def voice_options(many_langs: bool = False) -> list[Callable]:
    return [
        click.option("--pace", type=click.Choice(list(PACES)), default="normal", show_default=True,
                     help="how long each step holds for reading (animations keep their speed)"),
        click.option("--voice", default=None,
                     help="espeak (a draft voice, offline) or DIR with DIR/NAME/01.wav, 02.m4a, ... one per step"),
        lang_option(many_langs),
    ]


def with_options(options: list[Callable]) -> Callable:
    def apply(f: Callable) -> Callable:
        for opt in reversed(options):
            f = opt(f)
        return f
    return apply


def common(f: Callable) -> Callable:
    """The options every clip takes."""
    return with_options([
        quality_option(),
        click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="mp4",
                     show_default=True, help="png: a still of the last frame"),
        OUT_OPTION,
        click.option("--dry-run", is_flag=True, help="no frames, no video: write only the manifest"),
        click.option("--step", type=click.IntRange(min=1), default=None, help="stop after this step (for stills)"),
        click.option("--sections", is_flag=True,
                     help="also one mp4 per step, an index JSON and NAME.html (the presenter page)"),
        click.option("--one-file", is_flag=True, help="with --sections: the videos inside NAME.html"),
        DECK_OPTION,
        theme_option(),
    ] + voice_options())(f)


def clip_command(declared: Declared) -> click.Command:
    """The clip's command, built from its declaration (its options and help); its rules are
    imported only when it runs."""
    name = declared.name

    def run(preset: str | None, preset_file: str | None, quality: str, fmt: str, out: str, dry_run: bool,
            step: int | None,
            sections: bool, one_file: bool, deck: tuple[str, ...], pace: str, voice: str | None, lang: str,
            **given: Any) -> None:
        from scenes.pipeline.jobs.inputs import InputError, check, preset_file as read_preset_file, raw_inputs
        if deck and (dry_run or fmt != "mp4"):
            fail("Invalid value for '--deck': it needs the step videos (--format mp4, no --dry-run)", 2)
        try:
            from_file = read_preset_file(preset_file, name) if preset_file is not None else None
            raw = raw_inputs(name, preset, {k: v for k, v in given.items() if v not in (None, False)}, from_file)
            job = RenderJob(clip=name, inputs=check(name, raw), quality=quality, format=fmt, out=Path(out),
                            dry_run=dry_run, step=step, sections=sections or bool(deck), pace=pace, voice=voice,
                            one_file=one_file, lang=lang)
        except InputError as err:
            fail(err, 2)
        render(job)
        write_decks(out, deck, lang, name, {name: raw})

    run.__doc__ = declared.summary
    for opt in reversed(declared.options):
        if opt.flag:
            run = click.option(f"--{opt.name}", is_flag=True, default=None, help=opt.help)(run)
        else:
            run = click.option(f"--{opt.name}", type=str, default=None, help=opt.help)(run)
    run = click.option("--preset-file", default=None,
                       help="inputs from a preset file (the lab's download); options given beside it win")(run)
    run = click.option("--preset", default=None, help="inputs from assets/presets/ (see `list`)")(run)
    return click.command(name)(common(run))


def render(job: RenderJob) -> None:
    from scenes.pipeline.jobs.inputs import InputError
    from scenes.pipeline.run.steps import render as run_job     # split into step jobs where that pays
    try:
        for path in run_job(job):
            click.echo(str(path))
    except InputError as err:      # found only while rendering: a --step past the last step
        fail(err, 2)
    except Exception as err:  # a render failure: partial files are already gone
        fail(f"render of {job.clip} failed: {type(err).__name__}: {err}", 1)


def write_decks(out: str, kinds: tuple[str, ...], lang: str, clip: str | None = None,
                given: dict | None = None) -> None:
    """--deck: the deck or handout from the rendered step videos (clip None: the chapter's).
    Imported only when asked for (fpdf and python-pptx cost half a second)."""
    if not kinds:
        return
    from scenes.pipeline.present.decks import write
    try:
        for kind in kinds:
            click.echo(str(write(out, kind, lang, clip, given)))
    except Exception as err:
        fail(f"deck of {clip or 'the chapter'} failed: {type(err).__name__}: {err}", 1)


def fail(message: object, code: int) -> NoReturn:
    click.echo(f"Error: {message}".splitlines()[0], err=True)
    sys.exit(code)


class Commands(click.Group):
    """The built-in commands, then one per registered clip, made when asked for (from the
    registry's declarations: no clip is imported to list or describe them)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(declarations()))

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in self.commands and name in declarations():
            self.add_command(clip_command(declarations()[name]))
        return self.commands.get(name)


@click.group(cls=Commands)
def cli() -> None:
    """Render the chapter-4 lecture clips. `python render.py list` shows them."""


@cli.command("list")
@lang_option()
def list_clips(lang: str) -> None:
    """One line per clip, then its presets."""
    from scenes.kit.text.lang import tr
    from scenes.pipeline.jobs.inputs import preset_names
    for name, declared in declarations().items():
        click.echo(f"{name:18s}{tr(declared.summary, lang)}")
        for preset, data in preset_names(name):
            click.echo(f"  --preset {preset:26s}{tr(data['title'], lang)}")


def scheduler_address(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    match = SCHEDULER.fullmatch(value) if value is not None else None
    if value is not None and (not match or not 0 < int(match.group(3)) < 65536):
        raise click.BadParameter(f"{value!r} is not a scheduler address tcp://HOST:PORT (port 1-65535), "
                                 "as `dask scheduler` prints it", ctx, param)
    return value


@cli.command("chapter")
@with_options(voice_options(many_langs=True))
@quality_option(many=True)
@OUT_OPTION
@click.option("--sections/--no-sections", default=True, show_default=True,
              help="one mp4 per step of each clip and the presenter page chapter04.html")
@click.option("--one-file", is_flag=True, help="the videos inside chapter04.html (one file to mail)")
@DECK_OPTION
@theme_option(course=True)
@click.option("--scheduler", default=None, callback=scheduler_address,
              help="render on the dask.distributed scheduler at tcp://HOST:PORT (its workers must share "
                   "this checkout and the --out folder)")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="render on a dask LocalCluster of N worker processes on this machine")
@click.option("--course", default=None, metavar="FILE",
              help="a course file (TOML): your inputs per clip, and the chapter's tokens, language and pace "
                   "(assets/courses/ holds an example)")
@click.pass_context
def chapter(ctx: click.Context, quality: tuple[str, ...], out: str, sections: bool, one_file: bool,
            deck: tuple[str, ...], theme: str | None, scheduler: str | None, workers: int | None,
            course: str | None, pace: str, voice: str | None, lang: tuple[str, ...]) -> None:
    """Every clip with the book's inputs, joined in book order into chapter04.mp4, with the
    presenter page chapter04.html beside it; with several languages or qualities, every
    variant as one set of jobs (renders already made are reused)."""
    from scenes.pipeline.run.chapter import render_variants, variants
    from scenes.pipeline.jobs.inputs import InputError
    from scenes.pipeline.jobs.course import CourseError, read_course
    try:
        edition = read_course(course) if course else None
    except CourseError as err:       # every problem at once, one line each
        click.echo("\n".join(f"Error: {line}" for line in err.lines), err=True)
        sys.exit(2)
    if edition and ctx.get_parameter_source("lang") == click.core.ParameterSource.DEFAULT and edition.lang:
        lang = (edition.lang,)
    if edition and ctx.get_parameter_source("pace") == click.core.ParameterSource.DEFAULT and edition.pace:
        pace = edition.pace
    if edition and theme is None and edition.theme:
        apply_theme(edition.theme)
    if scheduler and workers:
        raise click.UsageError("--workers and --scheduler: give one (--workers N starts N workers here; "
                               "--scheduler uses a cluster already running)", ctx)
    executor = connect(scheduler, workers)
    try:
        for path in render_variants(list(lang), list(quality), out, sections or bool(deck), pace=pace,
                                    voice=voice, one_file=one_file, executor=executor, course=edition):
            click.echo(str(path))
    except InputError as err:
        fail(err, 2)
    except Exception as err:
        fail(f"chapter render failed: {err}", 1)
    finally:
        if executor is not None:
            executor.close()
    for variant in variants(Path(out), list(lang), list(quality)):
        write_decks(str(variant.out), deck, variant.lang)


def connect(scheduler: str | None, workers: int | None) -> Any:
    """The executor: None (processes here), or dask: the scheduler given, or a LocalCluster."""
    if not scheduler and not workers:
        return None
    from scenes.pipeline.run.executor import DaskExecutor
    try:
        return DaskExecutor(scheduler=scheduler, workers=workers)
    except OSError as err:       # no scheduler answers there (distributed's connection timeout)
        if not scheduler:
            fail(f"cannot start {workers} dask workers here: {err}", 1)
        fail(f"Invalid value for '--scheduler': no scheduler answers at {scheduler}: {err} "
             "(start one with `dask scheduler`)", 2)


def class_code(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is not None and not re.fullmatch(r"[A-Za-z0-9_-]{4,64}", value):
        raise click.BadParameter(f"{value!r}: 4 to 64 letters, digits, '-' or '_' (it goes in an address)", ctx, param)
    return value


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


@cli.command("lab")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on (127.0.0.1: this machine only)")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="port (0: any free one)")
@click.option("--out", default="media/lab", show_default=True, help="the lab's folder: every file it writes is in it")
@click.option("--jobs", type=click.IntRange(1, 16), default=1, show_default=True,
              help="videos rendered at once (the rest wait in a queue)")
@click.option("--max-mb", type=click.IntRange(min=10), default=2048, show_default=True,
              help="size cap of the folder: the least recently used renders are removed first")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="warm still workers on this machine  [default: one a core]")
@click.option("--scheduler", default=None, callback=scheduler_address,
              help="draw the stills on the dask.distributed scheduler at tcp://HOST:PORT (its workers must "
                   "have this checkout)")
@click.option("--code", default=None, callback=class_code,
              help="the class code a lab beyond loopback asks for  [default: a new one, printed in the address]")
@theme_option()
@click.pass_context
def lab(ctx: click.Context, host: str, port: int, out: str, jobs: int, max_mb: int, workers: int | None,
        scheduler: str | None, code: str | None) -> None:
    """A local web page per clip: change its inputs, see the still of a step and the numbers it
    draws, render the video (scenes/pipeline/lab/server.py); the pages, stills and videos in the
    theme (--theme light for a bright room). For a class: --host 0.0.0.0 (the address printed
    carries the class code), stills on every core, or on a cluster with --scheduler."""
    from scenes.pipeline.lab.server import serve
    if scheduler and workers:
        raise click.UsageError("--workers and --scheduler: give one (--workers N starts N still workers here; "
                               "--scheduler uses a cluster already running)", ctx)
    try:
        serve(host, port, out, jobs, max_mb, style.THEME, workers or cores(), scheduler, code)  # --theme's, in force
    except OSError as err:
        fail(f"cannot start the lab on {host}:{port}: {err} (is one already running? try --port 0)", 2)


@cli.command("title-card", hidden=True)
@click.argument("clip")
@quality_option()
@OUT_OPTION
@lang_option()
@theme_option()
def title_card(clip: str, quality: str, out: str, lang: str) -> None:
    """The title card shown before CLIP in the chapter video (used by `chapter`)."""
    if clip not in declarations():
        fail(f"unknown clip {clip!r}; valid: {', '.join(declarations())}", 2)
    from scenes.pipeline.run.runner import render_title
    for path in render_title(clip, quality, out, lang):
        click.echo(str(path))


def main(argv: list[str] | None = None) -> None:
    # A build makes some million short-lived objects (mobjects, arrays, dicts); Python's default
    # collects the youngest every 700 allocations. Every 50,000: 10% less CPU in a dry run.
    gc.set_threshold(50_000, 20, 100)
    try:
        cli.main(args=argv, standalone_mode=False)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except click.ClickException as err:
        fail(err.format_message(), 2)
    except click.exceptions.Abort:
        fail("interrupted", 1)
    except MissingTranslation as err:      # a catalogue lacks an entry: the project's bug, not the user's
        fail(err, 1)


if __name__ == "__main__":
    main()
