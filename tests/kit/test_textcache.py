"""The text cache (scenes/kit/text/textcache.py): a Text, MarkupText or formula loaded from it is the one
Manim builds (every point, submobject, colour and attribute, and the pixels it draws), two
processes can fill one cache at once, and a partial, corrupt or hostile entry is rebuilt.
The planted keys (no font size, no colour, no pixel width) show that the comparison fails."""
import os
import pickle
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import pytest
from manim import BOLD, ITALIC, Camera, MarkupText, MathTex, Mobject, Tex, Text, config, tempconfig
from manim.utils.color import ManimColor

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from scenes.kit.text import glyphs, style, textcache  # noqa: E402

textcache.install()
CJK, LATIN, MONO = style.FONT, "Noto Sans", style.NUMBER_FONT
LONG = "Your journey starts with one step, and every step after it looks back at the ones before it"

# (class, text, arguments, config): CJK, Latin, digits, −∞, markup, sizes, colours, options
SAMPLE = [
    (Text, "注意力权重：查询与键的点积", dict(font=CJK, font_size=26, color=style.TEXT), {}),
    (Text, "注意力权重：查询与键的点积", dict(font=CJK, font_size=34, color=style.TEXT), {}),
    (Text, "注意力权重：查询与键的点积", dict(font=CJK, font_size=26, color=style.QUERY), {}),
    (Text, LONG, dict(font=LATIN, font_size=28), {}),          # Pango wraps it at 256 px, not at 1920
    (Text, LONG, dict(font=LATIN, font_size=28), {"pixel_width": 256, "pixel_height": 144}),
    (Text, "0123456789 1.235e+87 NaN", dict(font=MONO, font_size=26), {}),
    (Text, "\u2212\u221e", dict(font=MONO, font_size=22, color=style.MASK), {}),
    (Text, "第一行\n第二行 two", dict(font=CJK, font_size=28, line_spacing=0.6), {}),
    (Text, "粗斜 bold", dict(font=LATIN, weight=BOLD, slant=ITALIC, font_size=30), {}),
    (Text, "着色的 key 与 value", dict(font=CJK, t2c={"key": style.KEY, "value": style.VALUE}), {}),
    (Text, "半透明", dict(font=CJK, fill_opacity=0.5, stroke_width=1, color=style.ACCENT), {}),
    (MarkupText, "<b>粗体</b> and <span foreground='#4FC3F7'>蓝 q</span>", dict(font=CJK, font_size=26), {}),
    (MarkupText, "<i>x</i><sub>2</sub> &lt; ∞", dict(font=LATIN, font_size=40, color=style.TRACK), {}),
]
FORMULAS = [
    (MathTex, r"\frac{q \cdot k}{\sqrt{d_k}}", dict(color=style.TEXT, font_size=26), {}),
    (MathTex, r"\frac{q \cdot k}{\sqrt{d_k}}", dict(color=style.TEXT, font_size=34), {}),
    (Tex, r"softmax $x_i$", dict(color=style.ACCENT, font_size=30), {}),
]
NUMBERS = [("\u22120.4223", 26, style.TEXT), ("13.3024", 22, style.ACCENT), ("\u2212\u221e", 26, style.MASK)]
# Not compared: ids and a copy's original_id, the parsed SVG, the SVG's file name. Two builds
# by Manim alone differ there, and in the names of id_to_vgroup_dict (Pango numbers its
# surfaces per process) and a MarkupText's sheen_direction (its first build in a process is
# flipped, later ones are copied from Manim's own SVG cache), which draws nothing at sheen 0.
IGNORED = {"original_id", "path_obj", "file_name"}


def build_all(sample=SAMPLE, numbers=NUMBERS, formulas=()):
    """Every sample text and number, each under its own config; the glyph sheets set afresh."""
    glyphs._cache.clear()
    made = []
    for cls, text, kwargs, settings in [*sample, *formulas]:
        with tempconfig(settings):
            made.append(cls(text, **kwargs))
    made += [glyphs.NumberText(text, size=size, color=color) for text, size, color in numbers]
    return made


def differences(a, b, where, seen=None, skip=frozenset()):
    """Everything that differs between two built texts (an oracle that knows nothing of the
    cache): classes, points and colours (to 1e-9), submobjects, attributes (but `skip`)."""
    seen = set() if seen is None else seen
    if (id(a), id(b)) in seen:
        return []
    seen.add((id(a), id(b)))
    if type(a) is not type(b):
        return [f"{where}: {type(a).__name__} != {type(b).__name__}"]
    if isinstance(a, np.ndarray):
        same = a.shape == b.shape and np.allclose(a, b, rtol=0, atol=1e-9, equal_nan=True)
        return [] if same else [f"{where}: arrays differ {a.shape} {b.shape}"]
    if isinstance(a, ManimColor):
        return differences(a._internal_value, b._internal_value, where, seen)
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return [f"{where}: {len(a)} != {len(b)} items"]
        return [d for k, (x, y) in enumerate(zip(a, b))
                for d in differences(x, y, f"{where}[{k}]", seen, skip)]
    if isinstance(a, dict):
        left = skip | IGNORED | ({"sheen_direction"} if a.get("sheen_factor") == 0 else set())
        if where.endswith("id_to_vgroup_dict"):          # named by Pango's surface counter
            return differences(list(a.values()), list(b.values()), where, seen, skip)
        if set(a) - left != set(b) - left:
            return [f"{where}: keys {sorted(set(a) ^ set(b) - left, key=str)}"]
        return [d for k in a if k not in left for d in differences(a[k], b[k], f"{where}.{k}", seen, skip)]
    if hasattr(a, "__dict__") and not isinstance(a, type):
        return differences(vars(a), vars(b), where, seen, skip)
    return [] if a == b else [f"{where}: {a!r} != {b!r}"]


def pixels(mob):
    camera = Camera(pixel_width=480, pixel_height=270)
    camera.capture_mobject(mob)
    return camera.pixel_array.copy()


def compare(made, reference):
    found = []
    assert len(made) == len(reference)
    for mob, ref in zip(made, reference):
        said = getattr(ref, "text", None) or getattr(ref, "tex_string", "")
        name = f"{type(ref).__name__}({said!r}, size {getattr(ref, '_font_size', '?')})"
        # a cached Text or MarkupText keeps no SVG groups (textcache.SLIM): the rest is the same
        slim = isinstance(ref, (Text, MarkupText)) and not isinstance(ref, glyphs.NumberText)
        if slim and mob.id_to_vgroup_dict != {}:
            found.append(f"{name}: the SVG's groups kept")
        found += differences(mob, ref, name, skip=frozenset({"id_to_vgroup_dict"} if slim else ()))
        if not np.array_equal(pixels(mob), pixels(ref)):
            found.append(f"{name}: pixels differ")
        assert len(mob.family_members_with_points()) == len(ref.family_members_with_points())
    return found


@pytest.fixture(scope="module")
def reference():
    os.environ["TEXT_CACHE"] = "off"
    try:
        return build_all(formulas=FORMULAS)
    finally:
        del os.environ["TEXT_CACHE"]


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TEXT_CACHE_DIR", str(tmp_path / "text"))
    monkeypatch.setattr(textcache, "stats", dict.fromkeys(textcache.stats, 0))
    return tmp_path / "text"


def no_formulas(reference):
    return reference[:len(SAMPLE)] + reference[len(SAMPLE) + len(FORMULAS):]


def entries(folder):
    return sorted(folder.rglob("*.pkl"))


def test_cached_texts_are_the_texts_manim_builds(cache, reference):
    cold = build_all(formulas=FORMULAS)
    misses = textcache.stats["misses"]         # a glyph sheet may repeat ("000" for 0 and for the advance)
    assert misses >= len(SAMPLE) and textcache.stats["stored"] == misses
    warm = build_all(formulas=FORMULAS)
    assert textcache.stats["misses"] == misses and textcache.stats["refused"] == 0
    assert len(entries(cache)) == textcache.stats["stored"]
    assert compare(cold, reference) == []
    assert compare(warm, reference) == []


@pytest.mark.parametrize("dropped", ["font_size", "color", "pixels"])
def test_planted_key_missing_a_field_is_caught(cache, reference, monkeypatch, dropped):
    real = textcache.key

    def careless(cls, arguments):
        if dropped == "pixels":
            with tempconfig({"pixel_width": 1920, "pixel_height": 1080}):
                return real(cls, arguments)
        return real(cls, {k: v for k, v in arguments.items() if k != dropped})

    monkeypatch.setattr(textcache, "key", careless)
    pairs = SAMPLE[:5]          # one text at two sizes, in two colours, at two pixel widths
    build_all(pairs, [])
    found = compare(build_all(pairs, []), reference[:5])
    assert found, f"a key without {dropped} went unnoticed"
    assert any("注意力" in f or "journey" in f for f in found)


def test_a_partial_corrupt_or_hostile_entry_is_rebuilt(cache, reference, tmp_path):
    build_all()
    stored = entries(cache)
    marker = tmp_path / "ran"
    hostile = _entry(pickle.dumps(("k", os.system), protocol=5))     # names a function outside Manim
    for n, path in enumerate(stored):
        data = path.read_bytes()
        if n % 3 == 0:
            path.write_bytes(data[: len(data) // 2])              # a partial write
        elif n % 3 == 1:
            path.write_bytes(b"\x80\x05garbage" + data[10:])      # corrupt
        else:
            path.write_bytes(_entry(_calls(f"touch {marker}")) if n % 2 else hostile)
    again = build_all()
    assert not marker.exists(), "a hostile entry ran code"
    assert textcache.stats["refused"] >= len(stored)
    assert compare(again, no_formulas(reference)) == []
    textcache.stats.update(misses=0, refused=0)
    build_all()          # each entry was written again, whole
    assert textcache.stats["misses"] == 0 and textcache.stats["refused"] == 0


def _entry(pickled):
    return textcache.MAGIC + zlib.compress(pickled)


def _calls(command):
    class Evil:
        def __reduce__(self):
            return (os.system, (command,))
    return pickle.dumps(Evil(), protocol=5)


def test_two_processes_fill_one_cache(cache, reference, tmp_path):
    """This process and another one build the same texts at once into one empty cache."""
    ready, go = tmp_path / "ready", tmp_path / "go"
    script = ("import sys, time, pathlib; sys.path.insert(0, sys.argv[1]); import test_textcache as t\n"
              "t.config.media_dir = t.glyphs.private_media()\n"     # Manim's own SVGs: not shared
              "pathlib.Path(sys.argv[2]).touch()\n"
              "while not pathlib.Path(sys.argv[3]).exists(): time.sleep(0.005)\n"
              "for _ in range(2): t.build_all()\n")
    other = subprocess.Popen([sys.executable, "-c", script, str(ROOT / "tests" / "kit"), str(ready), str(go)],
                             env={**os.environ, "TEXT_CACHE_DIR": str(cache)}, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not ready.exists() and time.monotonic() < deadline:
        time.sleep(0.005)
    go.touch()
    for _ in range(2):
        build_all()
    _, err = other.communicate(timeout=300)
    assert other.returncode == 0, err[-2000:]
    assert not list(cache.rglob(".part-*")), "a temporary file was left behind"
    textcache.stats.update(misses=0, refused=0)
    loaded = build_all()
    assert textcache.stats["misses"] == 0 and textcache.stats["refused"] == 0
    assert compare(loaded, no_formulas(reference)) == []


def test_off_writes_nothing(cache, monkeypatch):
    monkeypatch.setenv("TEXT_CACHE", "off")
    Text("关", font=CJK)
    assert not cache.exists() and textcache.stats["misses"] == 0


def test_subclasses_and_unkeyable_arguments_are_built_as_usual(cache):
    class Mine(Text):
        pass
    Mine("子类", font=CJK)
    Text("对象", font=CJK, z_index=0, name=Mobject)      # a class as an argument: no stable key
    assert textcache.stats["misses"] == 0 and not cache.exists()


def test_the_least_recently_used_entries_go_past_the_bound(cache):
    build_all(SAMPLE, [])
    stored = entries(cache)
    now = time.time()
    old, recent = stored[: 2 * len(stored) // 3], stored[2 * len(stored) // 3:]
    for path in stored:                                  # two thirds used two days ago
        os.utime(path, (now, now - 2 * 86400 if path in old else now))
    size = sum(p.stat().st_size for p in recent)
    most = int(size / 0.8) + 1                           # pruned down to 80% of it: the recent ones
    assert sum(p.stat().st_size for p in stored) > most
    textcache.prune(cache, most)
    assert not any(p.exists() for p in old) and all(p.exists() for p in recent)
    os.utime(recent[0], (now, now - 7200))
    textcache.stats.update(hits=0)
    build_all(SAMPLE, [])                                # the old ones built again, the rest loaded
    assert textcache.stats["hits"] >= len(recent) and recent[0].stat().st_mtime > now - 60
    textcache.prune(cache, 10**9)                        # under the bound: nothing goes
    assert len(entries(cache)) == len(stored)
