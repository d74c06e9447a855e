"""What a render that died leaves behind, and its removal. A render works in a hidden folder
named by its process and host (.render-NAME+PID+HOST+xxxx, .title-NAME+..., step videos being
swapped in as .NAME.sections+PID+HOST+new; "+", not "~": LaTeX compiles in these folders).
When that process is gone, the next render into the folder on the same host (and the chapter,
after its jobs) removes it. Other hosts' folders, on a shared file system, are left to their own.
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
from pathlib import Path

HOST = re.sub(r"[^A-Za-z0-9]", "_", socket.gethostname())
OWNED = re.compile(r"\+(\d+)\+([A-Za-z0-9_]+)\+")      # the process and host in a work folder's name


def mark() -> str:
    """What names a hidden file or folder as this process's, on this host."""
    return f"+{os.getpid()}+{HOST}+"


def work_dir(parent: Path, kind: str, clip: str) -> Path:
    """A private folder for one render, named by this process and host."""
    return Path(tempfile.mkdtemp(prefix=f".{kind}-{clip}{mark()}", dir=parent))


def sweep(folder: Path) -> None:
    """Remove what renders on this host left behind when they died (a work folder, step videos
    being swapped in): their process is gone. Other hosts' and live processes' are kept."""
    for path in folder.glob(".*"):
        owner = OWNED.search(path.name)
        if owner and owner.group(2) == HOST and not alive(int(owner.group(1))):
            if path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)       # a file being written whole (files.own_part)


def alive(pid: int) -> bool:
    """Whether process `pid` runs on this host (a zombie has ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][:1] != "Z"
    except OSError:
        return True
