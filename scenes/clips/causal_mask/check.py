"""The causality check of the causal-mask clip: what it finds for the tracked query (the
sentences), the note beside the outputs, and K′ and V′ with the changed row framed. Functions
of the scene (its result, book and names), chosen by the data."""
from manim import VGroup

from scenes.clips.causal_mask.parts import WORDS, input_grid, said
from scenes.kit.text import style
from scenes.kit.page.blocks import row_of, stack
from scenes.kit.page.marked import line, stand_ins


def check_say(scene, changed) -> list[tuple]:
    """What the check found for the tracked query, with the mask and without: two sentences."""
    r, t, book = scene.result, scene.result.track, scene.book
    on, off = r.verdict_on[t], r.verdict_off[t]

    def shift(name, value):          # a moved output's shift, drawn with four decimals
        return book.fmt(f"shift_{name}[{t}]", value)
    hidden = on == "same" and not r.sees_changed
    if on == "nan":
        found = said("on.nan", scene.qname())
    elif on == "moved":
        found = said("on.moved", query=scene.qname(), row=changed, shift=shift("causal", r.check_on.shift[t]))
    else:
        found = said("on.hidden" if hidden else "on.flat", query=scene.qname(), row=changed)
    if off in ("same", "nan"):
        flat = off == "same" and on == "same" and not hidden
        return [found, said("off.flat" if flat else "off." + off)]
    key = "off.leak" if hidden else "off.also" if on == "moved" else "off.moved"
    return [found, said(key, shift("open", r.check_off.shift[t]))]


def check_note(scene) -> VGroup:
    """Why an output is NaN (no visible key), or why the tracked one did not move although
    it sees the changed row (its weight underflowed to zero)."""
    r, t, book = scene.result, scene.result.track, scene.book
    lines = []
    if len(r.nan_outputs):
        lines.append(book.text("{} 没有可见的键：有掩码时输出本就是 NaN，无从比较。",
                               scene.queries[r.nan_outputs[0]], size=style.LABEL_SIZE, color=style.MASK))
    flat = [r.verdict_on[t] == "same" and r.sees_changed, r.verdict_off[t] == "same"]
    if any(flat):
        where = "both" if all(flat) else "on" if flat[0] else "off"
        lines.append(book.text(WORDS["flat"][where], scene.qname(), size=style.LABEL_SIZE, color=style.MUTED))
    return stack(*lines, buff=0.15) if lines else VGroup()


def changed_inputs(scene, row, delta, proxies=False, full=True) -> VGroup:
    """K′ and V′ with the changed row framed (or boxes their size, to choose a layout); or,
    when they are too big, that row alone."""
    ch, book = scene.result.check_on, scene.book
    if proxies:
        return stack(stand_ins(book, [ch.k_changed, ch.v_changed], scene.key_names), delta, buff=0.35)
    if full:
        k = input_grid(book, "K′", "k_changed", ch.k_changed, style.KEY, scene.key_names, row)
        v = input_grid(book, "V′", "v_changed", ch.v_changed, style.VALUE, scene.key_names, row)
        v.remove(v.row_labels)
        return stack(row_of([k, v], buff=0.4), delta, buff=0.35)
    k, v = (line(book, f"{name}[{row}]", values[row], decimals=style.decimals_for(values),
                 row_labels=[scene.key_names[row]], row_color=style.KEY, header=head, header_color=color)
            .frame_row(0, style.ACCENT, kind="changed")
            for name, values, head, color in (("k_changed", ch.k_changed, "K′ 的最后一行", style.KEY),
                                              ("v_changed", ch.v_changed, "V′ 的最后一行", style.VALUE)))
    return stack(k, v, delta, buff=0.35)
