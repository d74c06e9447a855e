#!/usr/bin/env python3
"""Render the chapter-4 lecture clips (self-attention and the causal mask).

  python render.py list                      one line per clip and preset
  python render.py NAME [inputs] [options]   render one clip
  python render.py chapter [options]         every clip, in book order

Exit codes: 0 done, 2 bad input (nothing written), 1 render failure.
"""
import sys

import click

from scenes.clip_inputs import check
from scenes.inputs import InputError, preset_names, raw_inputs

DESCRIPTIONS = {
    "weighted-average": "4.1 点积分数、softmax 权重与加权平均",
    "score-grid": "4.2–4.3 Q、K、V 投影，QKᵀ 分数网格与 √d_k 缩放",
    "causal-mask": "4.4–4.5 softmax 前的因果掩码、五步查询表与因果性检查",
    "dropout": "4.6 dropout：单次结果与期望，训练与评估",
    "multihead": "4.7 多头：跟踪一个元素经过 reshape、transpose 与合并",
}
QUALITY_NAMES = ["tiny", "low", "medium", "high", "4k"]   # as scenes/runner.py QUALITIES
# clip -> its input options: (name, help); flags end in "!"
INPUTS = {
    "weighted-average": [("x", "input rows, e.g. '1 0; 0 1; 1 1' (2-8 rows)"),
                         ("query", "index of the query row"), ("tokens", "one label per row")],
    "score-grid": [("x", "input rows X [T, D_in]"), ("wq", "W_Q [D_in, d_k]"), ("wk", "W_K [D_in, d_k]"),
                   ("wv", "W_V [D_in, d_v]"), ("q", "Q directly (with --k)"), ("k", "K directly"),
                   ("v", "V directly"), ("seed", "seed of the sampled variance step"),
                   ("tokens", "one label per row")],
    "causal-mask": [("q", "queries, e.g. '1 0; 0 1; 1 1'"), ("k", "keys (as wide as Q)"),
                    ("v", "values (as many rows as K)"), ("track", "the query row followed"),
                    ("no-scale!", "do not divide by sqrt(d_k)"), ("no-causal!", "no mask"),
                    ("diagonal", "triu diagonal: 1 keeps the diagonal, 0 masks it too"),
                    ("cached", "positions already in the cache"), ("tokens", "one label per key"),
                    ("delta", "causality check: added to the last row of K and V"),
                    ("cache-view", "cached positions drawn in the cache view when --cached is 0")],
    "dropout": [("weights", "one row after softmax, e.g. '0.2 0.3 0.5'"), ("p", "drop probability"),
                ("mode", "train or eval"), ("masks", "explicit masks, e.g. 101,010 (bit i keeps entry i)"),
                ("samples", "number of sampled masks"), ("seed", "sampling seed")],
    "multihead": [("shape", "B,T,D"), ("heads", "H (D divisible by H)"), ("track", "element, eN or N"),
                  ("wrong-merge!",
                   "emphasise the wrong merge: preview it at the merge, mark every misplaced id")],
}


def common(f):
    """The options every clip takes."""
    for opt in reversed([
        click.option("--quality", type=click.Choice(QUALITY_NAMES), default="high",
                     show_default=True, help="480p15, 720p30, 1080p60, 2160p60 (tiny: 144p5, for tests)"),
        click.option("--format", "fmt", type=click.Choice(["mp4", "gif", "png", "webm"]), default="mp4",
                     show_default=True, help="png: a still of the last frame"),
        click.option("--out", default="media", show_default=True, help="output folder"),
        click.option("--dry-run", is_flag=True, help="no frames, no video: write only the manifest"),
        click.option("--step", type=int, default=None, help="stop after this step (for stills)"),
        click.option("--sections", is_flag=True, help="also one mp4 per step plus an index JSON"),
    ]):
        f = opt(f)
    return f


def clip_command(name):
    def run(preset, quality, fmt, out, dry_run, step, sections, **given):
        try:
            raw = raw_inputs(name, preset, {k: v for k, v in given.items() if v not in (None, False)})
            inputs = check(name, raw)
        except InputError as err:
            fail(err, 2)
        render(name, inputs, quality, fmt, out, dry_run, step, sections)

    run.__doc__ = DESCRIPTIONS[name]
    for opt, help_text in reversed(INPUTS[name]):
        if opt.endswith("!"):
            run = click.option(f"--{opt[:-1]}", is_flag=True, default=None, help=help_text)(run)
        else:
            run = click.option(f"--{opt}", type=str, default=None, help=help_text)(run)
    run = click.option("--preset", default=None, help="inputs from assets/presets/ (see `list`)")(run)
    return click.command(name)(common(run))


def render(name, inputs, quality, fmt, out, dry_run, step=None, sections=False):
    from scenes.runner import render_clip   # imports Manim: only when rendering
    try:
        for path in render_clip(name, inputs, quality, fmt, out, dry_run, step, sections):
            click.echo(str(path))
    except Exception as err:  # a render failure: partial files are already gone
        fail(f"render of {name} failed: {type(err).__name__}: {err}", 1)


def fail(message, code):
    click.echo(f"Error: {message}".splitlines()[0], err=True)
    sys.exit(code)


@click.group()
def cli():
    """Render the chapter-4 lecture clips. `python render.py list` shows them."""


@cli.command("list")
def list_clips():
    """One line per clip, then its presets."""
    for name, text in DESCRIPTIONS.items():
        click.echo(f"{name:18s}{text}")
        for preset, data in preset_names(name):
            if preset != name:
                click.echo(f"  --preset {preset:26s}{data['title']}")


@cli.command("chapter")
@click.option("--quality", type=click.Choice(QUALITY_NAMES), default="high",
              show_default=True, help="480p15, 720p30, 1080p60, 2160p60 (tiny: 144p5, for tests)")
@click.option("--out", default="media", show_default=True, help="output folder")
@click.option("--sections", is_flag=True, help="also one mp4 per step of each clip")
def chapter(quality, out, sections):
    """Every clip with the book's inputs, joined in book order into chapter04.mp4."""
    from scenes.chapter import render_chapter
    try:
        for path in render_chapter(quality, out, sections):
            click.echo(str(path))
    except Exception as err:
        fail(f"chapter render failed: {err}", 1)


@cli.command("title-card", hidden=True)
@click.argument("clip", type=click.Choice(list(DESCRIPTIONS)))
@click.option("--quality", type=click.Choice(QUALITY_NAMES), default="high")
@click.option("--out", default="media")
def title_card(clip, quality, out):
    """The title card shown before CLIP in the chapter video (used by `chapter`)."""
    from scenes.runner import render_title
    for path in render_title(clip, quality, out):
        click.echo(str(path))


for _name in DESCRIPTIONS:
    cli.add_command(clip_command(_name))


def main(argv=None):
    try:
        cli.main(args=argv, standalone_mode=False)
    except click.exceptions.Exit as err:
        sys.exit(err.exit_code)
    except click.ClickException as err:
        fail(err.format_message(), 2)
    except click.exceptions.Abort:
        fail("interrupted", 1)


if __name__ == "__main__":
    main()
