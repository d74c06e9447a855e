"""The browser tests' one way to wait: a page keeps its state in `window.<name>.state()`
(lab, recorder, presenter); a test asks for it until a check holds or the time is up."""
import time


def page_state(driver, name):
    return driver.execute_script(f"return window.{name}.state()")


def wait_for(driver, name, check, seconds):
    """The page's state once `check(state)` holds; after `seconds`, an error naming the last state."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        s = page_state(driver, name)
        if check(s):
            return s
        time.sleep(0.1)
    raise AssertionError(f"timed out in state {page_state(driver, name)}")
