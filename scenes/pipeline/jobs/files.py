"""The pipeline's file helpers: output names, subtitles, and files written whole."""
from __future__ import annotations

import os
import signal
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from scenes.kit.text import lang as language
from scenes.pipeline.jobs.leftovers import mark


def stem(clip: str, lang: str = language.SOURCE) -> str:
    """Output names: NAME.mp4 in Chinese, NAME.en.mp4 in English, side by side in one folder."""
    return clip if lang == language.SOURCE else f"{clip}.{lang}"


def srt_time(seconds: float) -> str:
    ms = int(round(seconds * 1000))
    h, ms = divmod(ms, 3600_000)
    m, ms = divmod(ms, 60_000)
    s, ms = divmod(ms, 1000)
    return f"{h:02d}:{m:02d}:{s:02d},{ms:03d}"


def srt_text(captions: list) -> str:
    return "".join(f"{n}\n{srt_time(a)} --> {srt_time(b)}\n{text}\n\n"
                   for n, (a, b, text) in enumerate(captions, 1))


def write_atomic(path: Path, data: str) -> None:
    """Write to a hidden .part file beside `path`, then rename it: never a half-written file. The
    .part is this process's own (two processes writing the same file, as two test workers joining
    one chapter do, never rename each other's)."""
    tmp = own_part(path)
    tmp.write_text(data, encoding="utf-8")
    os.replace(tmp, path)


def own_part(path: Path, suffix: str = ".part") -> Path:
    """A new hidden file beside `path`, named by this process (leftovers.sweep removes it if the
    process dies) and unique to this call. Its mode is a new file's under the user's umask (a
    temporary file's 0600 would stay on the output after the rename: a colleague or a web
    server could not read a shared media folder)."""
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}{mark()}", suffix=suffix)
    os.fchmod(fd, NEW_FILE_MODE)
    os.close(fd)
    return Path(name)


def umasked() -> int:
    """The mode open() gives a new file here: 0o666 less the umask (read once, at import)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


NEW_FILE_MODE = umasked()


class Held:
    """A signal handler that only notes the signals that came (signals_held)."""

    def __init__(self) -> None:
        self.caught: list[int] = []

    def __call__(self, signum: int, frame: object) -> None:
        self.caught.append(signum)


HELD = (signal.SIGINT, signal.SIGTERM)


@contextmanager
def signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block ends, so that a render's files are replaced as a
    set (old video with new subtitles never happens); then the first that came is handled as it
    would have been. Python runs handlers in the main thread whichever thread the signal reached
    (the encoder's threads too), so the handlers are swapped, not the thread's mask. SIGKILL
    cannot wait: its window is the few renames inside the block."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = Held()
    previous = {s: signal.signal(s, held) for s in HELD}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        for came in held.caught[:1]:
            handler = previous[signal.Signals(came)]
            if callable(handler):
                handler(came, None)
            elif handler == signal.SIG_DFL:
                signal.raise_signal(came)
