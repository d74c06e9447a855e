"""Texts set once: Manim's Text, MarkupText, MathTex and Tex kept on disk, shared by every process.

A Text costs 30-50 ms: Pango writes an SVG, svgelements parses it and Manim turns each path
into a VMobject (a formula ~80 ms once TeX has run). The finished object (its points, submobjects and styles, exactly as Manim
built them) is pickled into `.cache/text/` and a later build with the same arguments, in
any process, loads it instead (~3 ms). The key is every argument of the call (text, font,
size, colour, weight, slant, markup, line spacing, t2c ...), the class, the renderer, the
pixel size (Pango wraps a Text at the frame's pixel width), a formula's TeX template and
TeX programs, and a fingerprint of the packages and fonts that shape glyphs (manim,
manimpango, Pango, Cairo, svgelements, numpy, Python and the installed font families): a
new version lands in a new folder.

Entries are written whole (a temporary file, then os.replace), so parallel renders and test
workers share the folder; an entry that does not load (partial, corrupt, another key, a
class outside Manim and numpy) is ignored and rebuilt. Past TEXT_CACHE_MB (400) the least
recently used entries are removed. Subclasses of these four are built as usual.
TEXT_CACHE=off disables it; TEXT_CACHE_DIR=DIR puts it elsewhere.
"""
from __future__ import annotations

import functools
import hashlib
import inspect
import io
import os
import pickle
import platform
import shutil
import tempfile
import time
import zlib
from pathlib import Path
from typing import Any

import manim
import manimpango
import numpy
import svgelements
from manim import MarkupText, MathTex, Tex, Text, config
from manim.utils.color import ManimColor
from manim.utils.tex import TexTemplate

FOLDER = Path(__file__).resolve().parents[3] / ".cache" / "text"
stats = {"hits": 0, "misses": 0, "stored": 0, "refused": 0}   # this process's counts


class Unkeyable(Exception):
    """An argument whose value has no stable text form: that call is not cached."""


def folder() -> Path | None:
    """The cache folder of these packages and fonts, or None when TEXT_CACHE=off."""
    if os.environ.get("TEXT_CACHE", "on").lower() in ("off", "0", "no"):
        return None
    return Path(os.environ.get("TEXT_CACHE_DIR") or FOLDER) / fingerprint()


@functools.lru_cache(maxsize=None)
def fingerprint() -> str:
    """What shapes the glyphs besides the arguments: packages, Pango, Cairo, the fonts."""
    fonts = "\n".join(sorted(manimpango.list_fonts()))
    parts = [manim.__version__, manimpango.__version__, manimpango.pango_version(),
             manimpango.cairo_version(), getattr(svgelements, "SVGELEMENTS_VERSION", "?"),
             numpy.__version__, platform.python_version(), fonts]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:16]


def plain(value: Any) -> str:
    """A value as exact, stable text (repr of plain values); Unkeyable otherwise."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return repr(value)
    if isinstance(value, ManimColor):
        return "ManimColor(" + repr(value.to_hex(with_alpha=True)) + ")"
    if isinstance(value, TexTemplate):
        return "TexTemplate(" + plain((value.tex_compiler, value.output_format, value.body)) + ")"
    if isinstance(value, (list, tuple)):
        return type(value).__name__ + "(" + ",".join(plain(v) for v in value) + ")"
    if isinstance(value, dict):
        return "{" + ",".join(plain(k) + ":" + plain(v) for k, v in sorted(value.items(), key=repr)) + "}"
    raise Unkeyable(type(value).__name__)


def key(cls: type, arguments: dict[str, Any]) -> str:
    """The cache key of one call: its class, every argument, the renderer and pixel size."""
    args = {k: v for k, v in arguments.items() if k != "self"}
    where = [str(config.renderer)]
    if cls is Text:          # Text wraps at config.pixel_width (MarkupText at a fixed 500 px)
        where += [str(config.pixel_width), str(config.pixel_height)]
    if cls in (MathTex, Tex):
        template = args.get("kwargs", {}).get("tex_template") or config.tex_template
        where += [plain(template), tex_programs(str(template.tex_compiler))]
    return cls.__name__ + "|" + plain(args) + "|" + ",".join(where)


@functools.lru_cache(maxsize=None)
def tex_programs(compiler: str) -> str:
    """The TeX compiler and dvisvgm installed (path, size, time), without running them."""
    found = []
    for name in (compiler, "dvisvgm"):
        path = shutil.which(name)
        stat = os.stat(path) if path else None
        found.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}" if stat else f"{name}:none")
    return ";".join(found)


def entry(where: Path, text_key: str) -> Path:
    digest = hashlib.sha256(text_key.encode()).hexdigest()
    return where / digest[:2] / f"{digest[2:34]}.pkl"


# what an entry may name: Manim's classes, numpy's arrays and scalars, paths, sets
ALLOWED = {("numpy", "dtype"), ("numpy", "ndarray"), ("numpy._core.multiarray", "scalar"),
           ("numpy._core.multiarray", "_reconstruct"), ("numpy._core.numeric", "_frombuffer"),
           ("pathlib", "PosixPath"), ("pathlib", "WindowsPath"), ("builtins", "set"), ("builtins", "frozenset")}


class _Pickler(pickle.Pickler):
    """The object's own dict; the object itself, wherever it is referred to, as "self"; the
    parsed SVG paths (`path_obj`, never read after parsing) left out."""

    def __init__(self, file: io.BytesIO, root: Any):
        super().__init__(file, protocol=5)
        self.root = root

    def persistent_id(self, obj: Any) -> str | None:
        if obj is self.root:
            return "self"
        if isinstance(obj, svgelements.Path):
            return "path"
        return None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, root: Any):
        super().__init__(file)
        self.root = root

    def persistent_load(self, pid: str) -> Any:
        return {"self": self.root, "path": None}[pid]

    def find_class(self, module: str, name: str) -> Any:
        found = super().find_class(module, name) if module.startswith("manim.") else None
        if not isinstance(found, type) and (module, name) not in ALLOWED:    # of Manim: classes only
            raise pickle.UnpicklingError(f"{module}.{name} is not allowed in a text cache entry")
        return found if found is not None else super().find_class(module, name)


MAGIC = b"textcache 2\n"      # then the pickle, zlib-compressed (about 6x smaller)
FRESH = 3600                   # a hit older than this is marked used again (its mtime)


def load(obj: Any, path: Path, text_key: str) -> bool:
    """Fill obj from the entry at path; False (obj untouched) if there is none that loads."""
    try:
        data = path.read_bytes()
        if time.time() - path.stat().st_mtime > FRESH:
            os.utime(path)             # used: the last to be pruned
    except OSError:
        return False
    try:
        if not data.startswith(MAGIC):
            raise ValueError("not an entry")
        stored_key, state = _Unpickler(io.BytesIO(zlib.decompress(data[len(MAGIC):])), obj).load()
    except Exception:      # partial, corrupt or refused: built again and written over
        stats["refused"] += 1
        return False
    if stored_key != text_key or not isinstance(state, dict):
        stats["refused"] += 1
        return False
    obj.__dict__.update(state)
    return True


def store(obj: Any, path: Path, text_key: str) -> None:
    """Write the entry whole: a temporary file in the same folder, then os.replace."""
    buf = io.BytesIO()
    _Pickler(buf, obj).dump((text_key, obj.__dict__))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, part = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(MAGIC + zlib.compress(buf.getvalue(), 1))
        os.replace(part, path)
        stats["stored"] += 1
        if stats["stored"] % PRUNE_EVERY == 1:
            prune(path.parents[2], limit())
    finally:
        if os.path.exists(part):
            os.unlink(part)


PRUNE_EVERY = 200              # a process looks at the cache's size at its 1st, 201st ... store


def limit() -> int:
    """The cache's size bound in bytes: TEXT_CACHE_MB, 400 unless set."""
    return int(float(os.environ.get("TEXT_CACHE_MB") or 400) * 2**20)


def prune(root: Path, most: int) -> None:
    """Past `most` bytes, remove the least recently used entries (every fingerprint's) down to
    80% of it. A reader of a removed entry builds its text again."""
    found = []
    for entry_ in root.glob("*/*/*.pkl"):
        try:
            info = entry_.stat()
        except OSError:
            continue
        found.append((info.st_mtime, info.st_size, entry_))
    total = sum(size for _, size, _ in found)
    if total <= most:
        return
    for _, size, old in sorted(found, key=lambda f: f[0]):
        if total <= most * 0.8:
            break
        try:
            old.unlink()
        except OSError:
            pass
        total -= size


# A Text's id_to_vgroup_dict holds its SVG's groups: Pango's glyph definitions and every <g>,
# ~9 of 10 of the paths it carries. Manim reads it only inside SVGMobject's own build (a
# formula's parts are found through it later, so MathTex and Tex keep theirs): a cached Text
# keeps it empty, and loads and copies ~5x faster.
SLIM = (Text, MarkupText)


def _cached(cls: type, original: Any) -> Any:
    signature = inspect.signature(original)

    @functools.wraps(original)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        where = folder()
        if where is None or type(self) is not cls:
            original(self, *args, **kwargs)
            return
        try:
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            text_key = key(cls, bound.arguments)
        except (TypeError, Unkeyable):
            original(self, *args, **kwargs)
            return
        path = entry(where, text_key)
        if load(self, path, text_key):
            stats["hits"] += 1
            return
        stats["misses"] += 1
        original(self, *args, **kwargs)
        if cls in SLIM:
            self.id_to_vgroup_dict = {}
        try:
            store(self, path, text_key)
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            pass            # a cache that cannot be written only costs time

    __init__.textcache_original = original        # type: ignore[attr-defined]
    return __init__


def _sized_hash(original: Any) -> Any:
    @functools.wraps(original)
    def _text2hash(self: Any, color: Any) -> str:
        return original(self, color) + f"-{config.pixel_width}x{config.pixel_height}"

    _text2hash.textcache_original = original        # type: ignore[attr-defined]
    return _text2hash


def install() -> None:
    """Route Text, MarkupText, MathTex and Tex through the cache (once; later calls do nothing). Manim's
    own SVG file of a Text is named by the pixel size too: Pango wraps a Text at the pixel
    width, and Manim's name alone would hand a 1080p SVG to a 144p build in the same folder."""
    for cls in (Text, MarkupText, MathTex, Tex):
        if not hasattr(cls.__init__, "textcache_original"):
            cls.__init__ = _cached(cls, cls.__init__)  # type: ignore[method-assign]
    if not hasattr(Text._text2hash, "textcache_original"):
        Text._text2hash = _sized_hash(Text._text2hash)  # type: ignore[method-assign]
