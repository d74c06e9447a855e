"""A test that hangs fails, with the stack where it waits, instead of holding CI to its limit: the
suite's timeout (pytest.ini, pytest-timeout) and a default socket timeout (conftest: Selenium's
link to chromedriver has none of its own)."""
import configparser
import socket
import subprocess
import sys

from conftest import ROOT

HANGS = '''
import time

def test_waits_for_ever():
    time.sleep(3600)
'''


def test_the_suite_has_a_timeout_shorter_than_ci_allows():
    ini = configparser.ConfigParser()
    ini.read(ROOT / "pytest.ini")
    assert 0 < float(ini["pytest"]["timeout"]) <= 900          # CI's 5400 s hold the suite and a hang or two
    assert 0 < socket.getdefaulttimeout() <= 600


def test_a_planted_hang_fails_with_its_stack(tmp_path):
    (tmp_path / "test_planted.py").write_text(HANGS)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", "--timeout", "2",
                           "-c", str(ROOT / "pytest.ini"), "--rootdir", str(tmp_path), str(tmp_path)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout[-2000:]
    assert "Timeout" in done.stdout and "time.sleep(3600)" in done.stdout, done.stdout[-2000:]
    assert "FAILED test_planted.py::test_waits_for_ever - Failed: Timeout" in done.stdout
