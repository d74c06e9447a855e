"""Every module imports on its own, and every test file collects on its own: nothing works only
because something else was imported first (a package __getattr__ that imports every section
module made `from scenes.compute.scores import softmax` fail in a fresh interpreter).

One process imports the third-party packages once (Manim, numpy, torch: never the project's),
then forks a child per module, which starts with no project module loaded and imports just that
one: a fresh interpreter as far as the project is concerned, at a fraction of the cost. A run
checks a third of the modules and of the test files, drawn by the run's seed (every one with
TEST_SAMPLE=all: tests/support/sample.py); scenes, scenes.compute, .kit, .clips, .pipeline and render.py every run."""
import os
import random
import subprocess
import sys

from conftest import ROOT
from support import sample

SHARE = 3          # a run imports one name in SHARE (the rest on other commits' runs)

FORKED = r'''
import os, sys, importlib, shutil, signal, tempfile, time, traceback
sys.path[:0] = [sys.argv[1], sys.argv[1] + "/tests"]
import manim, numpy, torch, pytest, click  # noqa: F401  (third-party only)
tempfile.tempdir = tempfile.mkdtemp(prefix="imports-")   # what a child makes there (os._exit runs no atexit) goes with it
failed = []
for line in sys.stdin.read().split():
    folder, _, name = line.rpartition(":")
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            if folder:
                sys.path.insert(0, folder)
                importlib.import_module("conftest")
            importlib.import_module(name)
        except BaseException:
            traceback.print_exc()
            code = 1
        os._exit(code)
    end = time.monotonic() + 120           # a child that hangs is a failure, not a wait for ever
    while not (status := os.waitpid(pid, os.WNOHANG))[0] and time.monotonic() < end:
        time.sleep(0.01)
    if not status[0]:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        print(f"{name}: its import did not end in 120 s", file=sys.stderr)
    if not status[0] or status[1]:
        failed.append(name)
shutil.rmtree(tempfile.tempdir, ignore_errors=True)
print("FAILED " + " ".join(failed))
'''


def failures(names):
    """The names (module, or FOLDER:test_module) whose import alone fails."""
    # one thread when it forks (OpenBLAS's and Manim's import start others): a lock a thread held
    # at the fork stays held in the child for ever
    quiet = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", FORKED, str(ROOT)], input="\n".join(names), cwd=ROOT,
                          capture_output=True, text=True, timeout=600, env=quiet)
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("FAILED"), done.stdout + done.stderr
    return last.split()[1:], done.stderr


def project_modules():
    for path in sorted((ROOT / "scenes").rglob("*.py")):
        yield ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
    yield "render"


def sampled(names, test, always=()):
    """A third of `names` (and every one of `always`), drawn by the run's seed and the test."""
    run_seed = sample.seed()
    if run_seed == "all":
        return list(names)
    rng = random.Random(f"{run_seed}:{test}")
    return [n for n in names if n in always or rng.random() < 1 / SHARE]


def test_every_module_imports_alone():
    names = list(project_modules())
    failed, errors = failures(sampled(names, "modules", [n for n in names if n.count(".") <= 1 or n == "render"]))
    assert failed == [], errors[-3000:]


def test_every_test_file_collects_alone():
    names = [f"{p.parent}:{p.stem}" for p in sorted((ROOT / "tests").rglob("test_*.py"))]
    names += [f"{ROOT / 'tests'}:support.{p.stem}" for p in sorted((ROOT / "tests" / "support").glob("*.py"))
              if p.stem != "__init__"]
    failed, errors = failures(sampled(names, "test files"))
    assert failed == [], errors[-3000:]


def test_the_check_can_fail(tmp_path):
    """The check names what fails and only that (the package __getattr__ above was caught so)."""
    failed, _ = failures(["scenes.compute.no_such_module", "scenes.compute.scores"])
    assert failed == ["scenes.compute.no_such_module"]
