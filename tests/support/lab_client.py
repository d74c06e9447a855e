"""The lab's tests' client side: the real server process (`render.py lab --port 0`), plain
HTTP requests to it, and what it wrote (its key folders, any file outside its folder)."""
import http.client
import json
import math
import os
import re
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import wave

import numpy as np

from conftest import ROOT

FAKE_MIC = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]


PLANTS = ROOT / "tests" / "support" / "plants"         # sitecustomize.py: LAB_PLANT=NAME plants a bug


def lab_server(tmp_path_factory, *options, plant=None, warm=True, seen=None):
    """`render.py lab --port 0 [options]` in a folder of its own (a module fixture's body); yields
    (base url on 127.0.0.1, lab folder, the folder around it, where the server runs). `plant`:
    a bug planted in the server process (tests/support/plants); `warm`: wait for a warm worker;
    `seen`: a list that gets the address line the lab printed."""
    root = tmp_path_factory.mktemp("lab-root")
    (root / "cwd").mkdir()
    env = dict(os.environ, LAB_PLANT=plant, PYTHONPATH=os.pathsep.join([str(PLANTS), str(ROOT)])) if plant else None
    proc = subprocess.Popen([sys.executable, str(ROOT / "render.py"), "lab", "--port", "0", "--out",
                             str(root / "lab"), *options], cwd=root / "cwd", stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    line = proc.stdout.readline()                       # lab: http://127.0.0.1:PORT/  (folder ...)
    assert line.startswith("lab: http://"), line
    if seen is not None:
        seen.append(line)
    url = "http://127.0.0.1:" + line.split()[1].split(":")[2].split("/")[0] + "/"
    threading.Thread(target=proc.stdout.read, daemon=True).start()   # drain its output
    end = time.monotonic() + 90
    while time.monotonic() < end and get(url + "health")[0] is None:
        time.sleep(0.1)                                 # listening
    while warm and time.monotonic() < end and not warmed(get(url + "health")[1]):
        time.sleep(0.3)                                 # the warm workers have imported Manim
    yield url, root / "lab", root
    proc.terminate()
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()


def warmed(health):
    return bool(health.get("workers")) and all(w["pid"] or w["address"] for w in health["workers"])


def get(url, timeout=10):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")
    except (urllib.error.URLError, ConnectionError):
        return None, {}


def answer(data):
    """A JSON answer, or (the server's own 413 and the like) its text as the error."""
    try:
        return json.loads(data or b"{}")
    except ValueError:
        return {"error": data.decode("utf-8", "replace")}


def post(url, data=None, raw=None, ctype="application/json", timeout=30):
    body = raw if raw is not None else json.dumps(data).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={"Content-Type": ctype})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, answer(err.read())


def raw_get(url, path):
    """GET a path exactly as written (urllib would resolve the dots)."""
    host, port = url.split("//")[1].strip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.request("GET", path)
    status = conn.getresponse().status
    conn.close()
    return status


def too_large(url, chunked, path="/api/still", ctype="application/json"):
    """POST (or PUT, for a take) a 10 MB body: the answer's status, or "closed" when the server
    answered 413 and closed before the upload finished (with a Content-Length, so it need not
    read the rest)."""
    host, port = url.split("//")[1].strip("/").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    conn.putrequest("PUT" if path.startswith("/api/takes/") else "POST", path)
    conn.putheader("Content-Type", ctype)
    conn.putheader(*(("Transfer-Encoding", "chunked") if chunked else ("Content-Length", str(160 * 65536))))
    conn.endheaders()
    try:
        for _ in range(160):
            piece = b"a" * 65536
            conn.send(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
        if chunked:
            conn.send(b"0\r\n\r\n")
        return conn.getresponse().status
    except ConnectionError:
        return "closed"
    finally:
        conn.close()


def key_folders(folder):
    """The lab's render folders (named by their key; voice/ holds the takes)."""
    return {p.name for p in folder.iterdir() if p.is_dir() and re.fullmatch("[0-9a-f]{32}", p.name)}


def outside_files(root, lab_folder):
    return {p for p in root.rglob("*") if p.is_file() and lab_folder not in p.parents}


def write_tone(path, seconds, rate=48000):
    """A steady 440 Hz tone: what Chromium's fake microphone plays (--use-file-for-fake-audio-capture)."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        t = np.arange(int(seconds * rate)) / rate
        w.writeframes((12000 * np.sin(2 * math.pi * 440 * t)).astype("<i2").tobytes())
