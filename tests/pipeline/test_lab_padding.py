"""4.4's padding paragraph in the lab, in headless Chromium against the real server: the question
card "左 padding 会让哪几行没有可见的键？" opens the padding step (step 5) with two left pads; a click
on a key's name there makes that key a pad or not (pads stay a prefix: k2 pads k0…k2 is refused,
as it would leave no key; k1 unpads it and the key after it), and the numbers and the still follow
torch's; a NaN weight's note says why (no visible key: every entry of its row is −∞). Planted: the
toggle that ignores the prefix rule (a right-padding count on the left) is caught by the values
the hit areas offer.
"""
import numpy as np
import pytest

from conftest import inputs_for
from support.browser import page_state, wait_for as wait
from support.causal_mask_oracle import oracle
from support.lab_client import lab_server
from scenes.pipeline.lab import controls

STEP = "5"
QUESTION = "左 padding 会让哪几行没有可见的键？"


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    yield from lab_server(tmp_path_factory)


@pytest.fixture(scope="module")
def browser(chromium):
    return chromium(size=(1400, 1000))


def settled(driver, more_than=0, seconds=90):
    return wait(driver, "lab", lambda s: s["stills"] > more_than and not s["pending"] and not s["computing"]
                and s["computed"] >= 1, seconds)


def pad_hits(driver):
    """The padding step's key names a click edits: (grid, label, value)."""
    return driver.execute_script(
        "return [...document.querySelectorAll('.hit[data-option=\"pad\"]')]"
        ".map(h => [h.dataset.grid, h.dataset.label, h.dataset.value])")


def click_key(driver, grid, label):
    selector = f'.hit[data-option="pad"][data-grid^="{grid}#"][data-label="{label}"]'
    driver.execute_script("document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", selector)
    driver.find_element("css selector", selector).click()


def test_the_padding_card_a_key_click_and_a_nan_note(lab, browser):
    url, _, _ = lab
    browser.get(f"{url}clip/causal-mask")
    first = settled(browser)
    card = next(b for b in browser.find_elements("css selector", "#qlist button") if b.text == QUESTION)
    card.click()
    s = settled(browser, first["stills"])
    assert browser.find_element("id", "f-step").get_attribute("value") == STEP
    assert browser.find_element("id", "f-pad").get_attribute("value") == "2"
    assert s["caption"] == "左 padding：前 2 个键是 pad；叠加因果掩码后第 0 到 1 行没有可见的键，softmax 得到 NaN。"
    drawn = {n["label"]: n["text"] for n in s["drawn"]}
    assert [drawn[f"pad_visible[{r}]"] for r in range(3)] == ["0", "0", "1"]
    # k0 and k1 are pads, k2 is the last key: a click on k1 unpads it (1 pad), on k0 unpads both (0);
    # k2 is offered nowhere (3 pads would leave no key)
    offered = {(g.split("#")[0], label, value) for g, label, value in pad_hits(browser)}
    assert {("pad_union", "k0", "0"), ("pad_union", "k1", "1")} <= offered
    assert not any(label == "k2" for _, label, _ in offered)

    click_key(browser, "pad_union", "k1")
    s = settled(browser, s["stills"])
    assert browser.find_element("id", "f-pad").get_attribute("value") == "1" and s["error"] is None
    expected = oracle(inputs_for("causal-mask", pad=1, track=2))
    panel = {n["label"]: n["value"] for n in s["numbers"]}
    assert [panel[f"pad_visible[{r}]"] for r in range(3)] == [expected[f"pad_visible[{r}]"] for r in range(3)] \
        == [0, 1, 2]
    assert panel["pad_weights[1][1]"] == pytest.approx(expected["pad_weights[1][1]"], abs=1e-12) == 1.0
    drawn = {n["label"]: n["text"] for n in s["drawn"]}
    assert drawn["pad_weights[0][0]"] == "NaN" and drawn["pad_weights[1][1]"] == "1.0000"
    assert "--pad 1" in s["command"] and s["caption"].startswith("左 padding：1 个 pad，是最前面的键")

    # the NaN of row 0: its note says why
    item = [it[5] for it in s["explain"]["items"]].index("pad_weights[0][1]")
    browser.find_element("css selector", f'.explain-layer .num[data-item="{item}"]').click()
    note = browser.execute_script("return window.lab.explain()")
    assert note["open"] is not None and "没有可见的键：每一项都是 −∞" in note["text"]
    assert page_state(browser, "lab")["stills"] == s["stills"]


def toggle_problems(picks, checked):
    """Each offered pad count, against the rule re-written here: the clicked key's padding flips,
    the pads stay a prefix (left) or a suffix (right), at least one key is left."""
    n_k, pads, side = len(checked["k"]), checked["pad"], checked["pad_side"]
    out = []
    for p in picks:
        if p["option"] != "pad":
            continue
        j, value = int(p["label"][1:]), int(p["value"])
        was = j < pads if side == "left" else j >= n_k - pads
        now = j < value if side == "left" else j >= n_k - value
        if was == now or not 0 <= value < n_k:
            out.append(f"{p['label']} -> --pad {value}")
    return out


@pytest.mark.parametrize("side", ["left", "right"])
def test_each_offered_toggle_keeps_the_rule(side, planted=None):
    from conftest import build
    checked = inputs_for("causal-mask", pad=1, pad_side=side)
    m = build("causal-mask", checked).manifest()
    items = next(st["items"] for st in m["layout"] if st["step"] == int(STEP))
    picks = controls.picks("causal-mask", items, {}, checked)
    assert {p["label"] for p in picks if p["option"] == "pad"} == {"k0", "k1", "k2"} - ({"k2"} if side == "left"
                                                                                         else {"k0"})
    assert toggle_problems(picks, checked) == []


def test_a_toggle_that_ignores_the_prefix_rule_is_caught(monkeypatch):
    """Planted: the toggle always counts from the left, whatever the side: right padding's clicks
    then offer counts that unpad the wrong key."""
    from conftest import build
    real = controls.pad_toggled
    monkeypatch.setattr(controls, "pad_toggled", lambda key, checked: real(key, {**checked, "pad_side": "left"}))
    checked = inputs_for("causal-mask", pad=1, pad_side="right")
    m = build("causal-mask", checked).manifest()
    items = next(st["items"] for st in m["layout"] if st["step"] == int(STEP))
    assert toggle_problems(controls.picks("causal-mask", items, {}, checked), checked) != []
