"""Both themes keep every colour pair readable: each text colour against what it is drawn on
(WCAG AA, 4.5:1) and each mark against its cell (3:1: a −∞ cell, a NaN cell's frame, the tracked
frame over any cell it covers). The cells are what the grids draw (grids.cell_look: their fill and
its opacity over the background); the contrast is WCAG 2.1's relative luminance, written here.
"""
import numpy as np
import pytest

from scenes.kit.draw import grids
from scenes.kit.text import style

TEXT_ROLES = ("text", "muted", "query", "key", "value", "mask", "track", "accent")
TEXT_AA, MARK_AA = 4.5, 3.0
BAND_OPACITY = 0.55          # the band behind a listing's tracked row (kit/draw/columns.py highlight)
ON_THE_BAND = ("text", "accent", "track")     # its code, its notes, the sizes flowing into them


def luminance(hex_colour):
    rgb = np.array([int(hex_colour[k:k + 2], 16) for k in (1, 3, 5)]) / 255
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    return float(linear @ [0.2126, 0.7152, 0.0722])


def contrast(a, b):
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def over(fill, background, opacity):
    """`fill` at `opacity` over `background`, as the frame shows it."""
    f, b = (np.array([int(c[k:k + 2], 16) for k in (1, 3, 5)]) for c in (fill, background))
    return "#" + "".join(f"{int(round(v)):02X}" for v in opacity * f + (1 - opacity) * b)


def hex_of(colour):
    return colour if isinstance(colour, str) else colour.to_hex().upper()


def cells(theme):
    """The cells a grid draws in `theme`, as seen: name -> colour."""
    style.use(theme)
    try:
        bg = style.BACKGROUND
        seen = {f"heat {t:.1f}": grids.cell_look(t, heat="weights") for t in np.linspace(0, 1, 11)}
        seen["−∞ cell"] = grids.cell_look(float("-inf"), marks=True)
        seen["NaN cell"] = grids.cell_look(float("nan"), marks=True)
        return {name: over(hex_of(look.fill), bg, look.opacity) for name, look in seen.items()}, \
            {name: look for name, look in seen.items()}
    finally:
        style.use("dark")


def pairs(theme, colours=None):
    """(what, foreground, background, least ratio) for every pair `theme` draws; `colours`: the
    theme's colours changed (a planted bug)."""
    colours = dict(style.THEMES[theme], **(colours or {}))
    bg = colours["background"]
    shown, looks = cells(theme)
    if colours != style.THEMES[theme]:       # a planted colour: the cells as that theme would draw them
        saved = dict(style.THEMES[theme])
        style.THEMES[theme].update(colours)
        try:
            shown, looks = cells(theme)
        finally:
            style.THEMES[theme].update(saved)
    band = over(colours["nan"], bg, BAND_OPACITY)
    out = [(f"{role} text on the background", colours[role], bg, TEXT_AA) for role in TEXT_ROLES]
    out += [(f"{role} text on the tracked row's band", colours[role], band, TEXT_AA) for role in ON_THE_BAND]
    out += [(f"a number on the {name}", hex_of(looks[name].text), cell, TEXT_AA)
            for name, cell in shown.items() if name.startswith("heat")]
    out += [("NaN on its cell", hex_of(looks["NaN cell"].text), shown["NaN cell"], TEXT_AA),
            ("−∞ on its cell", hex_of(looks["−∞ cell"].text), shown["−∞ cell"], MARK_AA),
            ("a −∞ cell on the background", shown["−∞ cell"], bg, MARK_AA),
            ("a NaN cell's frame on the background", hex_of(looks["NaN cell"].stroke), bg, MARK_AA),
            ("a cell's frame on the background", colours["grid"], bg, MARK_AA)]
    out += [(f"the tracked frame on the {name}", colours["track"], cell, MARK_AA)
            for name, cell in [("background", bg), *shown.items()] if name != "NaN cell"]
    return out


def palette_problems(theme, colours=None):
    return [f"{theme}: {what}: {fg} on {bg} is {contrast(fg, bg):.2f}:1, below {least}:1"
            for what, fg, bg, least in pairs(theme, colours) if contrast(fg, bg) < least]


@pytest.mark.parametrize("theme", list(style.THEMES))
def test_every_colour_pair_keeps_wcag_aa(theme):
    assert palette_problems(theme) == []
    assert len(pairs(theme)) >= 40


def test_a_light_caption_in_the_dark_themes_grey_is_caught():
    problems = palette_problems("light", {"text": style.THEMES["dark"]["muted"]})
    assert any("text text on the background" in p for p in problems), problems
    assert any("a number on the heat" in p for p in problems), problems


def test_a_light_heat_scale_too_dark_for_its_numbers_is_caught():
    problems = palette_problems("light", {"heat_high": style.THEMES["dark"]["heat_high"]})
    assert any("a number on the heat 1.0" in p for p in problems), problems


def test_the_oracle_reads_the_book_values():
    """WCAG's own figures: black on white 21:1, #777777 on white about 4.48:1."""
    assert contrast("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast("#777777", "#FFFFFF") == pytest.approx(4.48, abs=0.01)


def test_the_roles_are_told_apart_in_both_themes():
    """The layout record names a colour by its nearest role: no two roles of a theme alike."""
    for theme, colours in style.THEMES.items():
        rgb = {r: np.array([int(c[k:k + 2], 16) for k in (1, 3, 5)], float) for r, c in colours.items()}
        close = [(a, b) for a in rgb for b in rgb if a < b and np.linalg.norm(rgb[a] - rgb[b]) < 10]
        assert close == [], f"{theme}: {close}"


def test_use_puts_a_theme_in_force_and_refuses_an_unknown_one():
    from scenes.kit.text.layout import role_of
    try:
        style.use("light")
        assert (style.TEXT, style.BACKGROUND, style.ROLES["track"]) == ("#1A1D23", "#FFFFFF", "#442E00")
        assert role_of([0x1A, 0x1D, 0x23]) == "text" and role_of([0xEC, 0xEF, 0xF1]) == "nan"
    finally:
        style.use("dark")
    assert style.TEXT == "#ECEFF1" and role_of([0xEC, 0xEF, 0xF1]) == "text"
    with pytest.raises(ValueError, match="theme 'sepia': one of dark, light"):
        style.use("sepia")


def test_a_light_render_never_reuses_a_dark_one():
    from scenes.pipeline.jobs.registry import specs
    from scenes.pipeline.jobs.stamps import stamp_of, title_stamp
    spec = specs()["dropout"]
    dark = stamp_of("dropout", "tiny", False), title_stamp(spec, "tiny")
    try:
        style.use("light")
        light = stamp_of("dropout", "tiny", False), title_stamp(spec, "tiny")
    finally:
        style.use("dark")
    assert light[0] != dark[0] and light[1] != dark[1]
    assert stamp_of("dropout", "tiny", False) == dark[0]


def test_the_presenter_page_follows_the_theme(tmp_path):
    from scenes.pipeline.present.presenter import write_page
    pages = {theme: write_page(tmp_path, theme, "4", [], theme=theme).read_text("utf-8") for theme in style.THEMES}
    for theme, page in pages.items():
        other = "light" if theme == "dark" else "dark"
        assert f"background: {style.THEMES[theme]['background']}" in page
        assert f"background:{style.THEMES[theme]['background']}" in page            # its speaker view
        assert style.THEMES[other]["background"] not in page and "__" + "BACKGROUND" not in page
