"""The typed core (mypy.ini: the maths, the input rules, the pipeline, the NumberBook, the CLI)
passes the pinned type checker."""
import subprocess
import sys

from conftest import ROOT


def test_mypy_is_clean():
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "mypy.ini")],
                          cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
