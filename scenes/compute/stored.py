"""Results of a slow computation kept on disk, shared by every process (renders, test workers).

implementation's SDPA check runs PyTorch, and importing torch alone costs a second; its result is
a few floats. `@stored("torch")` keeps each result in `.cache/compute/`, keyed by everything that
decides it: the function's name and arguments, the bytes of its module file and of this one, the
code of each function and the value of each constant in its module as they are at the call (one
replaced at run time too), the installed versions of the packages named (read from their metadata,
without importing them), Python, and the processor (its model and instruction set: float rounding
may follow the kernels torch picks). Any change lands under a new key, so a stale entry is never
read.

An entry is JSON (a dataclass's fields: numbers, strings, tuples), written whole (a temporary
file, then os.replace), so parallel writers share the folder; one that does not read back as
the same dataclass is computed again and written over. COMPUTE_CACHE=off computes every time;
COMPUTE_CACHE_DIR=DIR puts the cache elsewhere.
"""
from __future__ import annotations

import dataclasses
import functools
import hashlib
import importlib.metadata
import json
import os
import platform
import sys
import tempfile
import types
from pathlib import Path
from typing import Any, Callable, TypeVar

FOLDER = Path(__file__).resolve().parents[2] / ".cache" / "compute"
F = TypeVar("F", bound=Callable[..., Any])
stats = {"hits": 0, "misses": 0}       # this process's counts


def folder() -> Path | None:
    if os.environ.get("COMPUTE_CACHE", "on").lower() in ("off", "0", "no"):
        return None
    return Path(os.environ.get("COMPUTE_CACHE_DIR") or FOLDER)


@functools.lru_cache(maxsize=None)
def processor() -> str:
    """The CPU's model and flags (Linux), else what platform says."""
    try:
        lines = Path("/proc/cpuinfo").read_text("utf-8", "replace").splitlines()
        wanted = [ln for ln in lines if ln.startswith(("model name", "flags", "Features", "CPU part"))]
        return "\n".join(sorted(set(wanted))) or platform.processor()
    except OSError:
        return platform.processor()


@functools.lru_cache(maxsize=None)
def environment(packages: tuple[str, ...]) -> str:
    versions = []
    for name in packages:
        try:
            versions.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            versions.append(f"{name}:none")
    own = Path(__file__).read_text("utf-8")
    return "\n".join(versions + [sys.version, platform.machine(), processor(), own])


def key(fn: Callable, args: tuple, packages: tuple[str, ...]) -> str:
    module = sys.modules[fn.__module__]
    source = Path(module.__file__ or "").read_bytes()
    parts = [f"{fn.__module__}.{fn.__qualname__}", repr(args), hashlib.sha256(source).hexdigest(),
             functions(module), environment(packages)]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def functions(module: Any) -> str:
    """The code of every function and the value of every plain constant in the module's
    namespace as they are now: one replaced while running (a test's planted bug) is another
    key, though the file is the same."""
    h = hashlib.sha256()
    for name, value in sorted(vars(module).items()):
        if isinstance(value, types.FunctionType):
            h.update(name.encode() + b"\0" + code_text(value.__code__).encode() + b"\0")
        elif isinstance(value, (int, float, str, bool, tuple, type(None))):
            h.update(name.encode() + b"\0" + repr(value).encode() + b"\0")
    return h.hexdigest()


def code_text(code: types.CodeType) -> str:
    """A code object as text that is the same in every process (marshal's bytes are not: they
    flag objects by their reference counts): its bytecode, names and constants."""
    def const(c: Any) -> str:
        if isinstance(c, types.CodeType):
            return code_text(c)
        if isinstance(c, (tuple, frozenset)):
            items = [const(x) for x in c]
            items = sorted(items) if isinstance(c, frozenset) else items
            return type(c).__name__ + "(" + ",".join(items) + ")"
        return repr(c)
    return "|".join([code.co_code.hex(), repr(code.co_names), repr(code.co_varnames), repr(code.co_freevars),
                     repr(code.co_cellvars), str(code.co_argcount), str(code.co_kwonlyargcount),
                     ",".join(const(c) for c in code.co_consts)])


FIELDS = {"tuple": tuple, "float": float, "int": int, "str": str, "bool": bool}   # what a field may be
LEAVES = (int, float, str, bool)          # and what a tuple may hold


def plain(value: Any) -> Any:
    """JSON's lists back into tuples; ValueError for anything else than numbers and strings."""
    if isinstance(value, list):
        return tuple(plain(v) for v in value)
    if not isinstance(value, LEAVES):
        raise ValueError(f"{type(value).__name__} in an entry")
    return value


def load(path: Path, kind: type) -> Any:
    """The entry as a `kind`, or None when there is none that reads back as one: the same
    fields, each of its declared type."""
    try:
        data = json.loads(path.read_text("utf-8"))
        fields = {f.name: FIELDS[str(f.type)] for f in dataclasses.fields(kind)}
        if not isinstance(data, dict) or sorted(data) != sorted(fields):
            return None
        values = {k: plain(v) for k, v in data.items()}
        if any(type(v) is not fields[k] for k, v in values.items()):
            return None
        return kind(**values)
    except (OSError, ValueError, TypeError):
        return None


def save(path: Path, result: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, part = tempfile.mkstemp(dir=path.parent, prefix=".part-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(dataclasses.asdict(result), out)
        os.replace(part, path)
    finally:
        if os.path.exists(part):
            os.unlink(part)


def stored(*packages: str) -> Callable[[F], F]:
    """Keep fn's result (a dataclass of numbers, strings and tuples) per key (see the module)."""
    def wrap(fn: F) -> F:
        kind = fn.__annotations__.get("return")

        @functools.wraps(fn)
        def cached(*args: Any) -> Any:
            where = folder()
            if where is None:
                return fn(*args)
            path = where / f"{key(fn, args, packages)}.json"
            result = load(path, result_class(fn, kind))
            if result is not None:
                stats["hits"] += 1
                return result
            stats["misses"] += 1
            result = fn(*args)
            try:
                save(path, result)
            except OSError:
                pass           # a cache that cannot be written only costs time
            return result

        cached.uncached = fn       # type: ignore[attr-defined]
        return cached              # type: ignore[return-value]
    return wrap


def result_class(fn: Callable, kind: Any) -> type:
    """The dataclass fn returns (its annotation, a name in its module under postponed annotations)."""
    if isinstance(kind, str):
        kind = vars(sys.modules[fn.__module__])[kind]
    if not (isinstance(kind, type) and dataclasses.is_dataclass(kind)) or \
            any(str(f.type) not in FIELDS for f in dataclasses.fields(kind)):
        raise TypeError(f"{fn.__qualname__} must be annotated to return a dataclass of {', '.join(FIELDS)}")
    return kind
