#!/usr/bin/env python3
"""Render the chapter-4 lecture clips (self-attention and the causal mask).

  python render.py list                      one line per clip and preset
  python render.py NAME [inputs] [options]   render one clip
  python render.py chapter [options]         every clip, in book order
  python render.py lab [--port 8765]         a local web page per clip (the lab)

Exit codes: 0 done, 2 bad input (nothing written), 1 render failure.
"""
from __future__ import annotations

import sys
from typing import Any, Callable, NoReturn

import click

from scenes.pipeline.inputs import InputError, check, preset_names, raw_inputs
from scenes.pipeline.registry import Clip, specs
from scenes.kit.lang import LANGS, SOURCE, MissingTranslation
from scenes.kit.style import PACES

QUALITY_NAMES = ["tiny", "low", "medium", "high", "4k"]   # as scenes/pipeline/runner.py QUALITIES
DECK_OPTION = click.option("--deck", type=click.Choice(["pptx", "pdf", "pdf:grid"]), multiple=True,
                           help="also a deck from the step videos (implies --sections): pptx (NAME.pptx), pdf "
                                "(NAME.pdf, a handout) or pdf:grid (NAME.grid.pdf, four a page); repeatable")
LANG_OPTION = click.option("--lang", type=click.Choice(list(LANGS)), default=SOURCE, show_default=True,
                           help="language of every word on screen and in the script (en: NAME.en.mp4)")


def voice_options() -> list[Callable]:
    return [
        click.option("--pace", type=click.Choice(list(PACES)), default="normal", show_default=True,
                     help="how long each step holds for reading (animations keep their speed)"),
        click.option("--voice", default=None,
                     help="espeak (a draft voice, offline) or DIR with DIR/NAME/01.wav, 02.m4a, ... one per step"),
        LANG_OPTION,
    ]


def common(f: Callable) -> Callable:
    """The options every clip takes."""
    for opt in reversed([
        click.option("--quality", type=click.Choice(QUALITY_NAMES), default="high",
                     show_default=True, help="480p15, 720p30, 1080p60, 2160p60 (tiny: 144p5, for tests)"),
        click.option("--format", "fmt", type=click.Choice(["mp4", "gif", "png", "webm"]), default="mp4",
                     show_default=True, help="png: a still of the last frame"),
        click.option("--out", default="media", show_default=True, help="output folder"),
        click.option("--dry-run", is_flag=True, help="no frames, no video: write only the manifest"),
        click.option("--step", type=click.IntRange(min=1), default=None, help="stop after this step (for stills)"),
        click.option("--sections", is_flag=True,
                     help="also one mp4 per step, an index JSON and NAME.html (the presenter page)"),
        click.option("--one-file", is_flag=True, help="with --sections: the videos inside NAME.html"),
        DECK_OPTION,
    ] + voice_options()):
        f = opt(f)
    return f


def clip_command(spec: Clip) -> click.Command:
    """The clip's command, built from its declaration: its options, help and rules."""
    name = spec.name

    def run(preset: str | None, quality: str, fmt: str, out: str, dry_run: bool, step: int | None,
            sections: bool, one_file: bool, deck: tuple[str, ...], pace: str, voice: str | None, lang: str,
            **given: Any) -> None:
        if deck and (dry_run or fmt != "mp4"):
            fail("Invalid value for '--deck': it needs the step videos (--format mp4, no --dry-run)", 2)
        try:
            raw = raw_inputs(name, preset, {k: v for k, v in given.items() if v not in (None, False)})
            inputs = check(name, raw)
        except InputError as err:
            fail(err, 2)
        render(name, inputs, quality, fmt, out, dry_run, step, sections or bool(deck), pace, voice, one_file,
               lang)
        write_decks(out, deck, lang, name)

    run.__doc__ = spec.summary
    for opt in reversed(spec.options):
        if opt.flag:
            run = click.option(f"--{opt.name}", is_flag=True, default=None, help=opt.help)(run)
        else:
            run = click.option(f"--{opt.name}", type=str, default=None, help=opt.help)(run)
    run = click.option("--preset", default=None, help="inputs from assets/presets/ (see `list`)")(run)
    return click.command(name)(common(run))


def render(name: str, inputs: dict, quality: str, fmt: str, out: str, dry_run: bool,
           step: int | None = None, sections: bool = False, pace: str = "normal",
           voice: str | None = None, one_file: bool = False, lang: str = SOURCE) -> None:
    from scenes.pipeline.runner import render_clip
    try:
        for path in render_clip(name, inputs, quality, fmt, out, dry_run, step, sections, pace, voice,
                                one_file, lang):
            click.echo(str(path))
    except InputError as err:      # found only while rendering: a --step past the last step
        fail(err, 2)
    except Exception as err:  # a render failure: partial files are already gone
        fail(f"render of {name} failed: {type(err).__name__}: {err}", 1)


def write_decks(out: str, kinds: tuple[str, ...], lang: str, clip: str | None = None) -> None:
    """--deck: the deck or handout from the rendered step videos (clip None: the chapter's)."""
    from scenes.pipeline.decks import write
    try:
        for kind in kinds:
            click.echo(str(write(out, kind, lang, clip)))
    except Exception as err:
        fail(f"deck of {clip or 'the chapter'} failed: {type(err).__name__}: {err}", 1)


def fail(message: object, code: int) -> NoReturn:
    click.echo(f"Error: {message}".splitlines()[0], err=True)
    sys.exit(code)


@click.group()
def cli() -> None:
    """Render the chapter-4 lecture clips. `python render.py list` shows them."""


@cli.command("list")
@LANG_OPTION
def list_clips(lang: str) -> None:
    """One line per clip, then its presets."""
    from scenes.kit.lang import tr
    for name, spec in specs().items():
        click.echo(f"{name:18s}{tr(spec.summary, lang)}")
        for preset, data in preset_names(name):
            click.echo(f"  --preset {preset:26s}{tr(data['title'], lang)}")


def with_voice(f: Callable) -> Callable:
    for opt in reversed(voice_options()):
        f = opt(f)
    return f


@cli.command("chapter")
@with_voice
@click.option("--quality", type=click.Choice(QUALITY_NAMES), default="high",
              show_default=True, help="480p15, 720p30, 1080p60, 2160p60 (tiny: 144p5, for tests)")
@click.option("--out", default="media", show_default=True, help="output folder")
@click.option("--sections/--no-sections", default=True, show_default=True,
              help="one mp4 per step of each clip and the presenter page chapter04.html")
@click.option("--one-file", is_flag=True, help="the videos inside chapter04.html (one file to mail)")
@DECK_OPTION
def chapter(quality: str, out: str, sections: bool, one_file: bool, deck: tuple[str, ...], pace: str,
            voice: str | None, lang: str) -> None:
    """Every clip with the book's inputs, joined in book order into chapter04.mp4, with the
    presenter page chapter04.html beside it."""
    from scenes.pipeline.chapter import render_chapter
    try:
        for path in render_chapter(quality, out, sections or bool(deck), pace=pace, voice=voice,
                                   one_file=one_file, lang=lang):
            click.echo(str(path))
    except InputError as err:
        fail(err, 2)
    except Exception as err:
        fail(f"chapter render failed: {err}", 1)
    write_decks(out, deck, lang)


@cli.command("lab")
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on (127.0.0.1: this machine only)")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="port (0: any free one)")
@click.option("--out", default="media/lab", show_default=True, help="the lab's folder: every file it writes is in it")
@click.option("--jobs", type=click.IntRange(1, 16), default=1, show_default=True,
              help="videos rendered at once (the rest wait in a queue)")
@click.option("--max-mb", type=click.IntRange(min=10), default=2048, show_default=True,
              help="size cap of the folder: the least recently used renders are removed first")
def lab(host: str, port: int, out: str, jobs: int, max_mb: int) -> None:
    """A local web page per clip: change its inputs, see the still of a step and the numbers it
    draws, render the video (scenes/pipeline/lab.py)."""
    from scenes.pipeline.lab import serve
    try:
        serve(host, port, out, jobs, max_mb)
    except OSError as err:
        fail(f"cannot start the lab on {host}:{port}: {err} (is one already running? try --port 0)", 2)


@cli.command("title-card", hidden=True)
@click.argument("clip")
@click.option("--quality", type=click.Choice(QUALITY_NAMES), default="high")
@click.option("--out", default="media")
@LANG_OPTION
def title_card(clip: str, quality: str, out: str, lang: str) -> None:
    """The title card shown before CLIP in the chapter video (used by `chapter`)."""
    if clip not in specs():
        fail(f"unknown clip {clip!r}; valid: {', '.join(specs())}", 2)
    from scenes.pipeline.runner import render_title
    for path in render_title(clip, quality, out, lang):
        click.echo(str(path))


for _spec in specs().values():
    cli.add_command(clip_command(_spec))


def main(argv: list[str] | None = None) -> None:
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
