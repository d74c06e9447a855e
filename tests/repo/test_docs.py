"""The README and docs/ stay true: the README fits on a screen or two, every relative link
resolves, every `render.py` command in a fenced bash block parses against the real CLI (its
command, options, choices and ranges; nothing runs), and every `--option` the prose names is one
that render.py (or the other tool that line names) has."""
import re
import shlex

import click
import pytest

from conftest import ROOT, theme_kept

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
OTHER_TOOLS = ("bench/", "sweep.py", "suite_time.py", "pytest", "dask ", "manim ", "run.sh test", "pip ", "Chromium", "--use-fake")


def cli():
    import render
    return render.cli


def commands(text):
    """Each render.py command line of a fenced bash block, continuation lines joined."""
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #")[0].strip()
            if "render.py" in line:
                yield shlex.split(line.split("render.py", 1)[1])
            elif line.startswith("bash run.sh chapter") or line.startswith("bash run.sh lab"):
                words = shlex.split(line)
                yield [words[2], *words[3:]]


def parse_problems(args):
    """What the real CLI says of these arguments, parsed but not run ('' when they parse)."""
    group = cli()
    if not args:
        return ""
    command = group.get_command(click.Context(group), args[0])
    if command is None:
        return f"no command {args[0]!r}"
    try:
        with theme_kept():          # --theme's callback puts the theme in force as it parses
            command.make_context(args[0], list(args[1:]), resilient_parsing=False)
    except click.exceptions.Exit:
        return ""
    except click.UsageError as error:
        return error.format_message()
    return ""


def every_option():
    group = cli()
    found = {"--help"}
    for name in group.list_commands(click.Context(group)) + ["title-card"]:
        command = group.get_command(click.Context(group), name)
        for param in command.params:
            found.update(o for o in param.opts + param.secondary_opts if o.startswith("--"))
    return found


def test_the_readme_fits_on_a_screen_or_two():
    assert len((ROOT / "README.md").read_text("utf-8").splitlines()) <= 200


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_relative_link_resolves(doc):
    text = doc.read_text("utf-8")
    links = [t.split("#")[0] for t in re.findall(r"\]\(([^)\s]+)\)", text) if not re.match(r"[a-z]+:", t)]
    missing = [t for t in links if t and not (doc.parent / t).exists()]
    assert missing == []


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_render_command_parses(doc):
    found = list(commands(doc.read_text("utf-8")))
    problems = [f"render.py {' '.join(a)}: {p}" for a in found if (p := parse_problems(a))]
    assert problems == []
    assert found or doc.name in ("proof.md", "architecture.md", "speed.md")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_every_option_named_exists(doc):
    known = every_option()
    missing = []
    for line in doc.read_text("utf-8").splitlines():
        if any(tool in line for tool in OTHER_TOOLS) and "render.py" not in line:
            continue
        for option in re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", line):
            if option not in known:
                missing.append(f"{option}: {line.strip()[:80]}")
    assert missing == []


def test_the_checks_can_fail():
    assert "no such option" in parse_problems(["dropout", "--no-such-option", "1"]).lower()
    assert parse_problems(["dropout", "--quality", "8k"]) != ""
    assert parse_problems(["no-such-clip"]) == "no command 'no-such-clip'"
    assert parse_problems(["dropout", "--p", "0.2", "--dry-run"]) == ""
