"""Where things go on the frame, and the record of where they went.

The content area lies between the title band and the caption band; `fit` scales a
group into it. `snapshot` lists every text mobject visible at the end of a step
with its box in frame units (the manifest's `layout`, SPEC.md section 1), the role of
the colour it is drawn in (read from the mobject, style.ROLES), and each grid on screen
with its rows and columns.
"""
from __future__ import annotations

from typing import Any

import numpy as np
from manim import FadeIn, FadeOut, ImageMobject, Mobject, Scene, config

from scenes.kit.text import lang, style
from scenes.kit.text.bounds import extent
from scenes.kit.text.inblock import block_of


def frame() -> dict[str, float]:
    """The frame's size in Manim units, read from the running config (never at import)."""
    return {"width": float(config.frame_width), "height": float(config.frame_height)}


def content_width() -> float:
    return frame()["width"] - 2 * style.FRAME_MARGIN


def content_height() -> float:
    """Between the title band and a two-line caption band."""
    return style.CONTENT_TOP - style.CONTENT_BOTTOM


def content_center() -> np.ndarray:
    return np.array([0.0, (style.CONTENT_TOP + style.CONTENT_BOTTOM) / 2, 0.0])


def fit(mob: Mobject, width: float | None = None, height: float | None = None,
        most: float = 1.0) -> Mobject:
    """Scale `mob` to fit width x height (the content area by default); never grow it past `most`."""
    width = content_width() if width is None else width
    height = content_height() if height is None else height
    if mob.width == 0 and mob.height == 0:
        return mob
    factor = min(width / mob.width if mob.width else np.inf, height / mob.height if mob.height else np.inf)
    mob.scale(min(factor, most))
    return mob


def visible(mob: Mobject) -> bool:
    if isinstance(mob, ImageMobject):
        return True
    for p in mob.family_members_with_points():      # the first part seen is enough
        if np.max(np.asarray(p.fill_rgbas)[:, 3], initial=0) > 0.05:
            return True
        stroked = float(getattr(p, "stroke_width", 0) or 0) > 0
        if stroked and np.max(np.asarray(p.stroke_rgbas)[:, 3], initial=0) > 0.05:
            return True
    return False


def _rgb(hex_colour: str) -> np.ndarray:
    return np.array([int(hex_colour[k:k + 2], 16) for k in (1, 3, 5)], float)


NEAR = 3.0     # 8-bit units: a colour this close to a palette colour is that colour (rounding)
_PALETTES: dict[str, tuple[dict[str, np.ndarray], tuple[np.ndarray, np.ndarray]]] = {}


def palette() -> tuple[dict[str, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """The theme in force as 8-bit RGB: each role's colour, and the heat scale's two ends."""
    if style.THEME not in _PALETTES:
        _PALETTES[style.THEME] = ({role: _rgb(colour) for role, colour in style.ROLES.items()},
                                  (_rgb(style.HEAT_LOW), _rgb(style.HEAT_HIGH)))
    return _PALETTES[style.THEME]


_ROLES: dict[tuple, str] = {}


def role_of(rgb: Any) -> str:
    """The palette role of a colour (8-bit RGB): its name in style.ROLES, "heat" on the heat
    scale between its ends, else the colour's hex (found once a theme and colour)."""
    rgb = np.asarray(rgb, float)
    key = (style.THEME, *rgb.tolist())
    if key not in _ROLES:
        _ROLES[key] = _role_of(rgb)
    return _ROLES[key]


def _role_of(rgb: np.ndarray) -> str:
    colours, (low, high) = palette()
    role, distance = min(((r, float(np.linalg.norm(rgb - c))) for r, c in colours.items()), key=lambda rd: rd[1])
    if distance <= NEAR:
        return role
    t = float(np.clip(np.dot(rgb - low, high - low) / np.dot(high - low, high - low), 0, 1))
    if np.linalg.norm(low + t * (high - low) - rgb) <= NEAR:
        return "heat"
    return "#" + "".join(f"{int(round(v)):02X}" for v in rgb)


def heat_of(mob: Mobject) -> float | None:
    """Where a filled cell's colour lies on the heat scale, 0 (low end) to 1 (high end)."""
    colours, (low, high) = palette()
    for part in mob.family_members_with_points():
        fill = np.asarray(part.fill_rgbas)
        if len(fill) and float(fill[0, 3]) > 0.05:
            rgb = np.asarray(fill[0, :3], float) * 255
            return round(float(np.clip(np.dot(rgb - low, high - low) / np.dot(high - low, high - low), 0, 1)), 4)
    return None


def colour_role(mob: Mobject) -> str | None:
    """The role of the colour a mobject is drawn in, read from its points' fill (a glyph, a filled
    cell) or, where nothing is filled, its stroke (a frame): the colour most of its visible parts
    have. None for an image or a mobject with nothing visible."""
    counts: dict[str, int] = {}
    for part in mob.family_members_with_points():
        fill, stroke = np.asarray(part.fill_rgbas), np.asarray(part.stroke_rgbas)
        if len(fill) and float(fill[0, 3]) > 0.05:
            rgba = fill[0]
        elif len(stroke) and float(stroke[0, 3]) > 0.05 and float(getattr(part, "stroke_width", 0) or 0) > 0:
            rgba = stroke[0]
        else:
            continue
        role = role_of(np.asarray(rgba[:3], float) * 255)
        counts[role] = counts.get(role, 0) + 1
    return max(counts, key=lambda r: counts[r]) if counts else None


def box(mob: Mobject) -> list[float]:
    return [round(float(v), 4) for v in extent(mob)]


def snapshot(scene: Scene, book: Any, step: int) -> dict[str, Any]:
    """The step's layout: every recorded text on screen with its box and, for grid entries
    and axis labels, its place (grid, row, col, the cell's box; grid, axis, index); every
    mark with the labels it covers; the user texts each item shows. A visible mobject that
    draws a digit and was not made by the book fails here (typed_numbers)."""
    items: list[dict[str, Any]] = []
    seen: set[int] = set()
    typed: list[str] = []
    for top in scene.mobjects:
        _walk(top, book, step, items, seen, typed, None)
    if typed:
        from scenes.kit.text.numbers import TypedNumberError
        raise TypedNumberError(f"step {step}: " + "; ".join(typed[:5]))
    out = {"step": step, "items": items, "grids": grids_shown(book, items)}
    shown, landings = pictures_now(scene), getattr(scene, "picture_landings", {}).get(step)
    if shown:
        out["pictures"] = shown
    if landings:
        out["landings"] = list(landings)
    return out


def read_picture(mob: Mobject) -> dict[str, Any]:
    """What a picture that stands for a number shows now (scenes/kit/text/stands.py), read from the mobject."""
    s: dict[str, Any] = getattr(mob, "stands")
    out = {"picture": s["picture"], "label": s["label"], "box": box(mob), "role": colour_role(mob)}
    if s["picture"] == "bar":
        upright = s["along"] == "y"
        scale = (mob.width if upright else mob.height) / s["thick"] if s["thick"] else 1.0
        length = mob.height if upright else mob.width
        out["drawn"] = round(float(length / scale / s["per"]), 6) if scale and s["per"] else None
    elif s["picture"] == "arrow":
        a, b = (s["plane"].p2c(p) for p in (mob.get_start(), mob.get_end()))
        out.update(components=s["components"], drawn=[round(float(q - p), 6) for p, q in zip(a, b)])
    else:
        above, below = s["rows"]
        out.update(index=s["index"], y=round(float(mob.get_y()), 4), above=round(float(above.get_y()), 4),
                   below=round(float(below.get_y()), 4))
    return out


def pictures_now(scene: Any) -> list[dict[str, Any]]:
    """Every visible picture on screen now."""
    seen: set[int] = set()
    out = []
    for m in (m for top in scene.mobjects for m in top.get_family()):
        if id(m) not in seen and getattr(m, "stands", None) is not None and visible(m):
            seen.add(id(m))
            out.append(read_picture(m))
    return out


def grids_shown(book: Any, items: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Each grid with an entry or label on screen, and how many rows and columns of entries it
    was built with (every entry the book placed in it, drawn or not): at a step's end each of its
    cells must show its entry (tests/support/contract.py)."""
    on = {it["grid"] for it in items if "grid" in it}
    shape: dict[str, list[int]] = {}
    for meta in book.meta.values():
        place = meta.get("place") or {}
        if place.get("grid") in on and "row" in place:
            rows_cols = shape.setdefault(place["grid"], [0, 0])
            rows_cols[0] = max(rows_cols[0], place["row"] + 1)
            rows_cols[1] = max(rows_cols[1], place["col"] + 1)
    return {g: {"rows": r, "cols": c} for g, (r, c) in sorted(shape.items())}


def _walk(mob: Mobject, book: Any, step: int, items: list, seen: set, typed: list, block: str | None) -> None:
    if id(mob) in seen:
        return
    seen.add(id(mob))
    block = block_of(mob, block)
    meta = book.meta.get(id(mob))
    if meta is None:
        drawn = digits_drawn(mob)
        if drawn is not None and visible(mob):
            typed.append(f"{type(mob).__name__} {drawn!r} was not made by the NumberBook")
            return
        for sub in mob.submobjects:
            _walk(sub, book, step, items, seen, typed, block)
        return
    if not visible(mob):
        return
    if meta["kind"] == "mark":
        items.append({"kind": "mark", "label": meta["mark"], "text": "", "mark": meta["mark"],
                      "covers": meta["covers"], "box": box(mob), "role": colour_role(mob)})
        for sub in mob.submobjects:
            _walk(sub, book, step, items, seen, typed, block)
        return
    item = {"kind": meta["kind"], "label": meta["label"], "text": meta["text"], "box": box(mob),
            "role": colour_role(mob)}
    for key, value in meta["place"].items():
        item[key] = box(value) if key == "cell" else value
        if key == "cell":
            item["cell_role"] = colour_role(value)     # the cell's fill, or its frame
            if item["cell_role"] == "heat":
                item["heat"] = heat_of(value)           # where on the heat scale: the value it stands for
    if meta["users"]:
        item["users"] = [list(u) for u in meta["users"]]
    if meta.get("full"):
        item["full"] = meta["full"]      # an abbreviated label's whole text
    block = item.get("block") or (item["grid"].split("#")[0] if "grid" in item else block)
    if block is not None:
        item["block"] = block            # the block it is drawn in (its role: the clip's BLOCKS)
    items.append(item)
    for label in meta["numbers"] + ([meta["label"]] if meta["kind"] == "number" else []):
        for rec in book.records:
            if rec["label"] == label and rec["step"] is None:
                rec["step"] = step


def digits_drawn(mob: Mobject) -> str | None:
    """What a text-drawing mobject draws, when it may hold a digit: the string of a Text,
    MarkupText, Tex, MathTex, Code or NumberText with a digit in it; "" for a number
    mobject (DecimalNumber, Integer), an SVG file or an image, whose content is unknown."""
    from manim import Code, DecimalNumber, ImageMobject, SingleStringMathTex, SVGMobject
    from scenes.kit.text.glyphs import NumberText
    from scenes.kit.text.numbers import numerals
    if isinstance(mob, (DecimalNumber, ImageMobject)):
        return ""
    if isinstance(mob, Code):
        text = str(getattr(mob, "code_string", ""))
    elif isinstance(mob, SingleStringMathTex):
        text = str(mob.tex_string)
    elif isinstance(mob, NumberText) or hasattr(mob, "original_text"):
        text = str(getattr(mob, "original_text", getattr(mob, "text", "")))
    elif isinstance(mob, SVGMobject):
        return str(getattr(mob, "file_name", ""))
    else:
        return None
    return text if numerals(text) else None


def wrap_two_lines(text: str) -> str:
    """Break a long caption once: after the punctuation nearest its middle when one lies in
    its middle half, else at the space nearest the middle (never beside an "=", so "T = 1"
    stays whole)."""
    middle = len(text) / 2
    strong = [i + 1 for i, ch in enumerate(text[:-1]) if ch in "，；：。、,;:"]
    weak = [i + 1 for i, ch in enumerate(text[:-1]) if ch == " "
            and text[i - 1:i] != "=" and text[i + 1:i + 2] != "="]

    def nearest(cuts: list[int]) -> int | None:
        return min(cuts, key=lambda c: abs(c - middle)) if cuts else None

    cut = nearest(strong)
    if cut is None or abs(cut - middle) >= len(text) / 4:
        cut = nearest(weak) if weak else cut
    if cut is None or abs(cut - middle) >= len(text) / 3:
        cut = int(middle)
    return text[:cut].rstrip() + "\n" + text[cut:].lstrip()


def caption_text(book: Any, text: str) -> Mobject:
    """The on-screen subtitle: one line, or two when one would not fit; inside the frame."""
    limit = content_width()
    mob = book.text(text, size=style.CAPTION_SIZE, kind="caption")
    if mob.width > limit:
        two = book.rewrap(text, wrap_two_lines(str(text)))
        mob = book.text(two, size=style.CAPTION_SIZE, kind="caption")
        if mob.width > limit:
            mob.scale_to_fit_width(limit)
    return mob.move_to([0, 0, 0]).align_to([0, style.CAPTION_BOTTOM, 0], [0, -1, 0])


def retitle(scene: Any, label: str, section: str, title: str, run_time: float = 0.4) -> None:
    """The title turns to another section's (a clip that spans two: 4.2, then 4.3): the section id
    recorded under `label`, the title in the current language."""
    head = scene.book.section(label, section)
    mob = scene.book.text("{}  " + lang.tr(title), head, size=style.TITLE_SIZE, kind="title")
    # a cross-fade, as the caption's: a Transform of one title's glyph outlines into another's is
    # garbled mid-way (4.2 at 27.5-27.7 s)
    # with the next play where the board gives way (the new page's first piece comes as the old
    # board and title go: no moment of a bare board between them), else now; the new title in
    # the old one's place in the drawing order (and the record's)
    scene.mobjects.insert(scene.mobjects.index(scene.title_mob), mob.move_to(scene.title_mob))
    scene.with_next(FadeOut(scene.title_mob, run_time=run_time), FadeIn(mob, run_time=run_time))
    scene.title_mob = mob
