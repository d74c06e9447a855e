"""Shared test tools: build a clip without frames, render a tiny real one, run the CLI."""
import contextlib
import io
import json
import os
import socket
import sys
import time
from pathlib import Path

import av
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# no socket of a test waits for ever: Selenium talks to chromedriver with the default (None: no limit)
socket.setdefaulttimeout(300)

import render  # noqa: E402
from manim import tempconfig  # noqa: E402
from scenes.kit.text.glyphs import private_media  # noqa: E402
from scenes.pipeline.jobs.inputs import check, raw_inputs  # noqa: E402
from scenes.pipeline.jobs.registry import scene as scene_class  # noqa: E402
from scenes.pipeline.run.runner import render_clip  # noqa: E402
from manim import config  # noqa: E402

# Anything a test draws outside a render writes Manim's files into a folder of this worker,
# not ./media, where parallel workers would read each other's half-written SVGs.
WORKER_MEDIA = config.media_dir = private_media()

def inputs_for(clip, preset=None, **given):
    return check(clip, raw_inputs(clip, preset, given))


class Built:
    """A clip constructed with animations skipped. Every text on screen was made by its
    NumberBook (layout.snapshot fails the build on any other mobject that draws a digit);
    `texts` lists them as (id, string)."""

    def __init__(self, scene):
        self.scene = scene
        self.numbers = scene.book.records
        self.book = scene.book
        self.frames = getattr(scene, "frames", [])
        self.texts = [(i, m["text"]) for i, m in scene.book.meta.items() if m["kind"] != "mark"]

    def texts_of(self, label_prefix):
        return [r["text"] for r in self.numbers if r["label"].startswith(label_prefix)]

    def value(self, label):
        hits = [r for r in self.numbers if r["label"] == label]
        assert hits, f"nothing shown as {label}"
        return hits[-1]

    def manifest(self):
        """What the runner writes: numbers, steps, frame and layout."""
        m = self.book.manifest(self.scene.spec.name, {})
        m["steps"] = [{"caption": t, "start": a, "end": b} for a, b, t in self.scene.captions]
        m["frame"], m["layout"] = self.frame, self.scene.layout
        return m


def build(clip, inputs=None, frames=False, pace="normal", lang="zh", frame_size=(854, 480), **given):
    """Construct `clip` under Manim with animations skipped. frames=True keeps each step's last
    frame (frame_size, 854x480 unless given) as scene.frames. lang: the language of its words
    (scenes/kit/text/lang.py)."""
    from scenes.kit.text import lang as language
    started = time.perf_counter()
    if inputs is None:
        inputs = inputs_for(clip, **given)
    # The worker's own folder: TeX and Pango files made by one build are reused by the next.
    settings = {"format": "none", "disable_caching": True, "media_dir": WORKER_MEDIA,
                "verbosity": "ERROR", "progress_bar": "none"}
    if frames:
        settings.update(pixel_width=frame_size[0], pixel_height=frame_size[1])
    try:
        language.use(lang)
        with tempconfig(settings):
            scene = scene_class(clip)(inputs=inputs, skip_animations=True, pace=pace)
            scene.capture_frames = frames
            scene.render()
            from scenes.kit.text.layout import frame
            shape = frame()
    finally:
        language.use(language.SOURCE)
    built = Built(scene)
    built.frame = shape
    logged(started, "build", clip, inputs, frames, pace, lang, frame_size)
    return built


def logged(started, *key):
    """TEST_BUILD_LOG=DIR: one line per build or tiny render (its key, seconds and test), a file
    a worker; tests/support/suite_time.py lists the keys built more than once."""
    folder = os.environ.get("TEST_BUILD_LOG")
    if not folder:
        return
    line = json.dumps({"key": json.dumps(key, sort_keys=True, default=str),
                       "s": round(time.perf_counter() - started, 3),
                       "test": os.environ.get("PYTEST_CURRENT_TEST", "")})
    name = f"builds-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.jsonl"
    with open(Path(folder) / name, "a") as log:
        log.write(line + "\n")


@pytest.fixture(scope="session", autouse=True)
def shared_builds(tmp_path_factory):
    """One folder for the whole session, every xdist worker's (their base folders' parent):
    tests/support/shared_builds.py keeps its builds there."""
    from support import shared_builds as shared
    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "shared-builds"
    folder.mkdir(exist_ok=True)
    shared.FOLDER[:] = [folder]
    return folder


def assert_shown(built, label, expected, decimals=4):
    """The number shown as `label` equals the oracle at display precision."""
    rec = built.value(label)
    if isinstance(expected, float) and np.isnan(expected):
        assert rec["text"] == "NaN", rec
    elif isinstance(expected, float) and np.isinf(expected):
        assert rec["text"] in ("\u2212\u221e", "\u221e"), rec
    else:
        assert abs(float(rec["text"].replace("\u2212", "-")) - expected) <= 0.5 * 10 ** -decimals + 1e-12, \
            (label, rec, expected)


def cli(*args):
    """Run render.py's entry point in-process; returns (exit code, stdout+stderr). The theme it
    puts in force (`--theme light`) is undone after it, as a process's would end with it."""
    buffer = io.StringIO()
    code = 0
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(buffer), theme_kept():
        try:
            render.main(list(map(str, args)))
        except SystemExit as done:
            code = done.code or 0
    return code, buffer.getvalue()


@contextlib.contextmanager
def theme_kept():
    """The theme in force (style's, and CHAPTER_THEME, which render.py's --theme sets for the
    processes it starts) put back after the block: an in-process render.py or a parse of its options."""
    from scenes.kit.text import style
    theme, told = style.THEME, os.environ.get(style.THEME_VARIABLE)
    try:
        yield
    finally:
        style.use(theme)
        os.environ.pop(style.THEME_VARIABLE, None)
        if told is not None:
            os.environ[style.THEME_VARIABLE] = told


@pytest.fixture(autouse=True)
def dark_theme():
    """Every test starts and ends in the dark theme: one that leaves another in force fails here,
    naming itself, not a later test of the same worker (the lab's command, a chapter's stamps)."""
    from scenes.kit.text import style

    def theme():
        return style.THEME, os.environ.get(style.THEME_VARIABLE) or "dark"
    assert theme() == ("dark", "dark"), f"a test before this one left the theme {theme()} in force"
    yield
    left = theme()
    style.use("dark")
    os.environ.pop(style.THEME_VARIABLE, None)
    assert left == ("dark", "dark"), f"this test left the theme {left} in force (in style, in the environment)"


def assert_refused(tmp_path, clip, args, option):
    """Bad input: exit 2, one line naming the option, nothing written."""
    code, out = cli(clip, *args, "--out", str(tmp_path / "out"))
    assert code == 2, out
    assert len(out.strip().splitlines()) == 1 and option in out, out
    assert not (tmp_path / "out").exists()


def assert_video_with_captions(out, clip, steps):
    """A tiny real render: 256x144, not blank, one caption per step, in order, ending with it.

    Returns the captions for clip-specific checks."""
    video = probe(out / f"{clip}.mp4")
    assert (video["width"], video["height"]) == (256, 144)
    assert video["middle_spread"] > 5          # not a blank frame
    captions = parse_srt((out / f"{clip}.srt").read_text("utf-8"))
    assert len(captions) == steps
    assert all(a < b for a, b, _ in captions)
    assert all(captions[i][1] <= captions[i + 1][0] for i in range(steps - 1))
    assert abs(video["duration"] - captions[-1][1]) < 0.5
    assert abs(video["frames"] - video["duration"] * 5) <= 2
    return captions


def run_cli(*args, tmp=None):
    """Run `python render.py ...` as a user would; returns CompletedProcess."""
    import subprocess
    return subprocess.run([sys.executable, str(ROOT / "render.py"), *args], capture_output=True,
                          text=True, cwd=tmp or ROOT)


def probe(path):
    """Width, height, duration (s), frame count and the mean brightness of a middle frame."""
    with av.open(str(path)) as box:
        stream = box.streams.video[0]
        frames = [f.to_ndarray(format="rgb24") for f in box.decode(stream)]
        duration = float(stream.duration * stream.time_base) if stream.duration else len(frames) / float(stream.average_rate)
        return {"width": stream.width, "height": stream.height, "duration": duration,
                "frames": len(frames), "middle_spread": float(frames[len(frames) // 2].std())}


def parse_srt(text):
    """[(start, end, caption)] in seconds."""
    def secs(t):
        h, m, rest = t.split(":")
        s, ms = rest.split(",")
        return int(h) * 3600 + int(m) * 60 + int(s) + int(ms) / 1000
    out = []
    for block in text.strip().split("\n\n"):
        lines = block.splitlines()
        a, b = lines[1].split(" --> ")
        out.append((secs(a), secs(b), " ".join(lines[2:])))
    return out


@pytest.fixture
def tiny_render(tmp_path):
    """Render a clip for real at 256x144, 5 fps; returns the output folder."""
    def go(clip, inputs=None, **kwargs):
        started = time.perf_counter()
        inputs = inputs if inputs is not None else inputs_for(clip)
        render_clip(clip, inputs, quality="tiny", out=tmp_path, **kwargs)
        logged(started, "tiny_render", clip, inputs, sorted(kwargs.items()))
        return tmp_path
    return go


@pytest.fixture(scope="session")
def tiny_chapter(tmp_path_factory):
    """The whole chapter rendered once at 144p5 (with step videos and the presenter page),
    shared by every test module and xdist worker: a file lock lets one worker render while
    the others wait, then reuse it (the chapter's own stamps)."""
    import fcntl
    from scenes.pipeline.run import chapter
    shared = tmp_path_factory.getbasetemp().parent / "tiny-chapter"
    shared.mkdir(exist_ok=True)
    with open(shared.parent / "tiny-chapter.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        chapter.render_chapter("tiny", shared)
    return shared


def manifest(path):
    return json.loads(Path(path).read_text("utf-8"))


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    """Headless Chromium (Debian's chromium and chromedriver, through Selenium; nothing
    downloaded): `chromium(size=(w, h), logs=False, extra=[flags])` starts one with a profile of
    its own (logs: the console and network logs kept); each quits when the module ends."""
    import shutil
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.skip("run.sh setup installs chromium")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    started = []

    def start(size=(1280, 760), logs=False, extra=()):
        options = webdriver.ChromeOptions()
        for arg in ["--headless=new", "--no-sandbox", "--disable-gpu", "--autoplay-policy=no-user-gesture-required",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--no-first-run", "--disable-quic", f"--window-size={size[0]},{size[1]}",
                    f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}", *extra]:
            options.add_argument(arg)
        options.binary_location = shutil.which("chromium")
        if logs:
            options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        started.append(webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options))
        return started[-1]
    yield start
    for driver in started:
        driver.quit()


def pytest_runtest_logreport(report):
    """TEST_TIME_LOG=FILE: one line per test phase as it ends (seconds, phase, test), for
    tests/support/suite_time.py; written as the run goes, so a run cut short still says."""
    if os.environ.get("TEST_TIME_LOG"):
        with open(os.environ["TEST_TIME_LOG"], "a") as log:
            log.write(f"{report.duration:.2f}s {report.when} {report.nodeid}\n")


def pytest_configure(config):
    config.addinivalue_line("markers", "sampled(k): run k of the test's cases a run (tests/support/sample.py)")


def pytest_terminal_summary(terminalreporter):
    from support import sample
    terminalreporter.write_line(f"sample of the costly cases: TEST_SAMPLE={sample.seed()} "
                                "(the same cases again with it; TEST_SAMPLE=all runs every case)")


def pytest_collection_modifyitems(config, items):
    """The costly tests' sample (support/sample.py). The files that use the tiny chapter run last
    (`--dist loadfile` keeps a file on one worker): by the time a worker asks for it, the other
    has usually built it."""
    from support import sample
    kept, dropped = sample.split(items, sample.seed())
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    late = {item.path for item in items if "tiny_chapter" in item.fixturenames}
    items.sort(key=lambda item: item.path in late)


def exact_sums(products):
    """Oracles' dot products: each row of torch's products (rounded one by one) summed exactly
    and rounded once, as the chapter's scores are (a sum that cancels is 0)."""
    import math
    import torch
    flat = products.reshape(-1, products.shape[-1]).tolist()
    return torch.tensor([math.fsum(row) for row in flat], dtype=torch.float64).reshape(products.shape[:-1])
