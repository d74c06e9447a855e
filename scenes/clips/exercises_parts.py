"""Builders for the exercises clip: the question card with its countdown, grids whose −∞,
masked-zero and NaN cells read as such, fractions, big numbers with grouping commas, tables.

Every number goes through the NumberBook; every colour comes from style.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, Dot, Mobject, Rectangle, RoundedRectangle, Text, VGroup)

from scenes.kit import style
from scenes.kit.grids import heat_color
from scenes.kit.layout import content_width, fit
from scenes.kit.numbers import NumberBook, Shown

ANSWER_TOP = style.CONTENT_TOP - 0.6      # answers start below their heading
CELL_H = style.MIN_CELL_H
DOT_RADIUS, DOT_GAP = 0.08, 0.14


def grouped(book: NumberBook, label: str, value: int) -> Shown:
    """A whole number with grouping commas, recorded with its value (the text is not a float)."""
    return book.grouped(label, value)


def big_number(book: NumberBook, label: str, value: int, color: str = style.TEXT,
               size: float = style.NUMBER_SIZE) -> Mobject:
    """A grouped whole number as a number mobject (in the number font, kind 'number')."""
    text = grouped(book, label, value)
    mob = Text(str(text), font=style.NUMBER_FONT, font_size=size, color=color)
    return book.register(mob, "number", text, label)


def code(book: NumberBook, template: str, *slots: Shown, color: str = style.TEXT,
         size: float = style.LABEL_SIZE, **named: Shown) -> Mobject:
    """A line of code in the monospaced font."""
    return book.text(template, *slots, color=color, size=size, font=style.NUMBER_FONT, **named)


def question_card(book: NumberBook, header: Shown, lines: Sequence[Mobject], pause: int) -> tuple:
    """The exercise as a card: header, question lines and (pause > 0) the countdown, one dot a second.

    Returns (card, dots); dots is None without a pause."""
    head = book.text(header, color=style.ACCENT, size=style.TITLE_SIZE)
    body = VGroup(*lines).arrange(DOWN, aligned_edge=LEFT, buff=0.28)
    parts, dots = [head, body], None
    if pause:
        hold = book.text("先想一想：停 {} 秒", book.index("pause", pause), color=style.MUTED,
                         size=style.LABEL_SIZE)
        dots = VGroup(*[Dot(radius=DOT_RADIUS, color=style.TRACK) for _ in range(pause)])
        dots.arrange(RIGHT, buff=DOT_GAP)
        parts.append(VGroup(hold, dots).arrange(DOWN, aligned_edge=LEFT, buff=0.22))
    content = VGroup(*parts).arrange(DOWN, aligned_edge=LEFT, buff=0.45)
    fit(content, width=content_width() - 1.2, height=style.CONTENT_TOP - style.CONTENT_BOTTOM - 1.0)
    frame = RoundedRectangle(corner_radius=0.2, width=content.width + 0.9, height=content.height + 0.8,
                             stroke_color=style.ACCENT, stroke_width=3)
    frame.set_fill(style.NAN_FILL, opacity=0.25).move_to(content)
    card = VGroup(frame, content).move_to([0, (style.CONTENT_TOP + style.CONTENT_BOTTOM) / 2, 0])
    return card, dots


def heading(book: NumberBook, header: Shown) -> Mobject:
    """'习题 3.1 · 答案' at the top left of the content area."""
    mob = book.text("{} · 答案", header, color=style.ACCENT, size=style.BODY_SIZE)
    left = -content_width() / 2
    return mob.move_to([0, style.CONTENT_TOP - 0.2, 0]).align_to([left, 0, 0], LEFT)


def place(group: Mobject, top: float = ANSWER_TOP, most: float = 1.0) -> Mobject:
    """Fit an answer into the content area under the heading, centred there."""
    fit(group, height=top - style.CONTENT_BOTTOM - 0.05, most=most)
    return group.move_to([0, (top + style.CONTENT_BOTTOM) / 2, 0])


# ------------------------------------------------------------------ grids
def number_cell(book: NumberBook, label: str, value: float, decimals: int, hidden: bool = False) -> Mobject:
    """One cell's number: −∞ and NaN spelled out, a hidden (masked) weight as an exact '0'."""
    if hidden and value == 0:
        return book.num(label, 0, 0, color=style.MASK)
    return book.num(label, value, decimals)


def cell_fill(value: float, hidden: bool, heat: bool) -> tuple:
    """(fill, opacity, stroke, stroke width) of a cell."""
    if math.isnan(value):
        return style.NAN_FILL, 1.0, style.MASK, 4
    if math.isinf(value):
        return style.MASK, 0.9, style.MASK, 2
    if hidden:
        return style.BACKGROUND, 0.0, style.MASK, 3
    if heat:
        return heat_color(value), 0.9, style.GRID_LINE, 2
    return style.BACKGROUND, 0.0, style.GRID_LINE, 2


class Cells(VGroup):
    """A grid of prepared entries (numbers or labels), one rectangle each, sized to the widest;
    `looks` gives each cell's (fill, opacity, stroke, width). Optional header above, row labels left."""

    def __init__(self, entries: list, looks: list | None = None, header: Mobject | None = None,
                 row_labels: Sequence[Mobject] = (), cell_w: float | None = None) -> None:
        super().__init__()
        self.entries = entries
        self.n_rows, self.n_cols = len(entries), len(entries[0])
        flat = [e for row in entries for e in row]
        width = cell_w or max(max(e.width for e in flat) + style.CELL_PAD, style.MIN_CELL_W)
        height = max(max(e.height for e in flat) + style.CELL_PAD, CELL_H)
        self.cell_w = width
        self.boxes = []
        for i, row in enumerate(entries):
            boxes = []
            for j, entry in enumerate(row):
                fill, opacity, stroke, stroke_w = looks[i][j] if looks else (style.BACKGROUND, 0, style.GRID_LINE, 2)
                box = Rectangle(width=width, height=height, stroke_color=stroke, stroke_width=stroke_w,
                                fill_color=fill, fill_opacity=opacity).move_to([j * width, -i * height, 0])
                entry.move_to(box)
                boxes.append(box)
            self.boxes.append(boxes)
        order = sorted((b for row in self.boxes for b in row), key=lambda b: b.stroke_width)
        self.box_group = VGroup(*order)
        self.add(self.box_group, VGroup(*flat))
        self.row_labels = VGroup(*row_labels)
        for i, mob in enumerate(self.row_labels):
            mob.next_to(self.boxes[i][0], LEFT, buff=0.15)
        self.add(self.row_labels)
        self.header = header
        if header is not None:
            header.next_to(self.box_group, UP, buff=0.18)
            self.add(header)

    def row(self, i: int) -> VGroup:
        return VGroup(*self.boxes[i], *self.entries[i])


def value_grid(book: NumberBook, name: str, values: Any, decimals: int, hidden: Any = None,
               heat: bool = False, header: Mobject | None = None, row_labels: Sequence[Mobject] = ()) -> Cells:
    """Numbers recorded as name[i][j]."""
    values = np.atleast_2d(np.asarray(values, float))
    hidden = np.zeros(values.shape, bool) if hidden is None else np.asarray(hidden, bool)
    entries = [[number_cell(book, f"{name}[{i}][{j}]", values[i, j], decimals, hidden[i, j])
                for j in range(values.shape[1])] for i in range(values.shape[0])]
    looks = [[cell_fill(values[i, j], hidden[i, j], heat) for j in range(values.shape[1])]
             for i in range(values.shape[0])]
    return Cells(entries, looks, header, row_labels)


def column(book: NumberBook, name: str, values: Any, decimals: int, header: Mobject,
           colors: Sequence[str] | None = None) -> Cells:
    """A one-column grid (row sums, visible keys), recorded as name[i]."""
    entries = [[book.num(f"{name}[{i}]", v, decimals, color=colors[i] if colors else style.TEXT)]
               for i, v in enumerate(values)]
    return Cells(entries, header=header)


def fraction_grid(book: NumberBook, name: str, fractions: Sequence, hidden: Any,
                  header: Mobject | None = None) -> Cells:
    """Weights as fractions: '1/3', or '1' and '0' where exact; numerators and denominators recorded."""
    entries, looks = [], []
    for i, row in enumerate(fractions):
        entries.append([])
        looks.append([])
        for j, (num, den) in enumerate(row):
            text = fraction_text(book, name, i, j, num, den)
            color = style.MASK if hidden[i][j] else style.TEXT
            entries[-1].append(book.text(text, color=color, size=style.NUMBER_SIZE, font=style.NUMBER_FONT))
            looks[-1].append(cell_fill(float(num) / den, bool(hidden[i][j]), True))
    return Cells(entries, looks, header)


def arrow_label(book: NumberBook, template: str = "→", *slots: Shown) -> Mobject:
    return book.text(template, *slots, color=style.MUTED, size=style.BODY_SIZE, font=style.NUMBER_FONT)


def tagged(grid: Mobject, tag: Mobject) -> VGroup:
    """A grid with its shape tag under it."""
    return VGroup(grid, tag.next_to(grid, DOWN, buff=0.15))


def row_names(book: NumberBook, n: int, letter: str = "q", color: str = style.QUERY) -> list:
    """'q0', 'q1', ... with each index recorded as row[i]."""
    return [book.text(letter + "{}", book.index(f"row[{i}]", i), color=color, size=style.LABEL_SIZE)
            for i in range(n)]


def fraction_text(book: NumberBook, name: str, i: int, j: int, num: int, den: int) -> Shown:
    """'1/3' ('1' or '0' when the denominator is 1), numerator and denominator recorded."""
    top = book.index(f"{name}.num[{i}][{j}]", num)
    return top if den == 1 else book.compose("{num}/{den}", num=top, den=book.index(f"{name}.den[{i}][{j}]", den))


def fraction_rows(book: NumberBook, name: str, fractions: Sequence) -> list:
    """Each row as '(1/2, 1/2, 0)'."""
    return [book.compose("(" + ", ".join("{}" for _ in row) + ")",
                         *[fraction_text(book, name, i, j, *f) for j, f in enumerate(row)])
            for i, row in enumerate(fractions)]


def table(rows: Sequence[Sequence[Mobject | None]], gap: float = 0.5, aligns: Sequence[Any] = (),
          row_h: float = 0.58) -> VGroup:
    """Rows of cells in columns (left-aligned, or right-aligned where aligns[k] is RIGHT);
    returns one VGroup per row, each row on its own line."""
    n_cols = max(len(r) for r in rows)
    widths = [max((r[k].width for r in rows if k < len(r) and r[k] is not None), default=0)
              for k in range(n_cols)]
    xs = [sum(widths[:k]) + gap * k for k in range(n_cols)]
    out = VGroup()
    for n, row in enumerate(rows):
        line = VGroup()
        for k, mob in enumerate(row):
            if mob is None:
                continue
            right = k < len(aligns) and aligns[k] is RIGHT
            mob.move_to([xs[k] + (widths[k] if right else 0), -n * row_h, 0], aligned_edge=RIGHT if right else LEFT)
            line.add(mob)
        out.add(line)
    return out


# ------------------------------------------------------------------ the answers' bodies
def muted(book: NumberBook, template: str, *slots: Shown, color: str = style.MUTED, **named: Shown) -> Mobject:
    return book.text(template, *slots, color=color, size=style.LABEL_SIZE, **named)


def align_weights(s: Any, r: Any) -> list:
    """3.1: v2's W_query.weight [d_out, d_in] -> .T -> v1's W_query [d_in, d_out], then the code."""
    book, v1, v2 = s.book, s.name("v1"), s.name("v2")
    lin = value_grid(book, "align.linear", r.linear[0], 2, header=code(book, "{}：W_query.weight", v2,
                                                                         color=style.QUERY))
    mine = value_grid(book, "align.v1", r.v1[0], 2, header=code(book, "{}：W_query", v1, color=style.QUERY))
    for j in range(lin.n_cols):                        # row 0 of the weight is column 0 of W
        lin.entries[0][j].set_color(style.TRACK)
        mine.entries[j][0].set_color(style.TRACK)
    left = tagged(lin, muted(book, "[d_out, d_in] = {}", book.coords("align.linear.shape", r.linear[0].shape)))
    right = tagged(mine, muted(book, "[d_in, d_out] = {}", book.coords("align.v1.shape", r.v1[0].shape)))
    arrow = arrow_label(book, ".T →")
    lines = VGroup(code(book, "{}：x @ W_query", v1), code(book, "{}：W_query(x) = x @ W_query.weight.T", v2),
                   code(book, "sa_{first}.W_query = nn.Parameter(sa_{second}.W_query.weight.T)", first=v1, second=v2,
                        color=style.TRACK),
                   muted(book, "W_key、W_value 同样转置后交给 {}", v1)).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
    top = VGroup(left, arrow, right).arrange(RIGHT, buff=0.8)
    arrow.match_y(lin.box_group)
    place(VGroup(top, lines).arrange(DOWN, buff=0.6), most=1.4)
    return [left, arrow, right, lines]


def align_outputs(s: Any, r: Any, diff: Shown) -> list:
    """3.1: the same x through both versions: equal outputs, their largest difference."""
    book, v1, v2 = s.book, s.name("v1"), s.name("v2")
    words = [book.text(w, color=style.MUTED, size=style.LABEL_SIZE) for w in s.tokens]
    x = value_grid(book, "align.x", r.x, 2, header=code(book, "x"), row_labels=words)
    out1 = value_grid(book, "align.out_v1", r.out_v1, 4, header=code(book, "{}(x)", v1, color=style.VALUE))
    out2 = value_grid(book, "align.out_v2", r.out_v2, 4, header=code(book, "{}(x)", v2, color=style.VALUE))
    VGroup(x, out1, out2).arrange(RIGHT, buff=0.8, aligned_edge=UP)
    gap = book.text("max |{first}(x) − {second}(x)| = {diff}", first=v1, second=v2, diff=diff, color=style.ACCENT,
                    size=style.BODY_SIZE, font=style.NUMBER_FONT)
    place(VGroup(VGroup(x, out1, out2), gap).arrange(DOWN, buff=0.6), most=1.2)
    return [x, out1, out2, gap]


def wrapper(s: Any, r: Any) -> list:
    """3.2: each head's [T, d_out] output, concatenated along the last axis."""
    book = s.book
    heads, d_out, width = (book.index(f"wrap.{n}", getattr(r, n)) for n in ("heads", "d_out", "width"))
    call = code(book, "MultiHeadAttentionWrapper(d_in={d_in}, d_out={d_out}, num_heads={heads})",
                d_in=book.index("wrap.d_in", r.d_in), d_out=d_out, heads=heads, color=style.TRACK)
    colors = (style.QUERY, style.KEY, style.VALUE, style.ACCENT)
    grids = []
    for h, out in enumerate(r.outputs):
        g = value_grid(book, f"wrap.head[{h}]", out, 4, header=book.text(
            "头 {}", book.index(f"wrap.head_id[{h}]", h), color=colors[h % 4], size=style.LABEL_SIZE))
        for row in g.entries:
            for e in row:
                e.set_color(colors[h % 4])
        grids.append(tagged(g, muted(book, "{}", book.coords("wrap.head_shape", out.shape))))
    cat = value_grid(book, "wrap.concat", r.concat, 4, header=book.text("拼接", size=style.LABEL_SIZE))
    for row in cat.entries:
        for j, e in enumerate(row):
            e.set_color(colors[(j // r.d_out) % 4])
    arrow = arrow_label(book, "torch.cat(dim={}) →", book.index("wrap.cat_dim", -1))
    flow = VGroup(*grids, arrow, tagged(cat, muted(book, "{}", book.coords("wrap.concat_shape", r.concat.shape))))
    flow.arrange(RIGHT, buff=0.6, aligned_edge=UP)
    arrow.match_y(cat.box_group)
    sums = VGroup(s.line("拼接宽度 = num_heads × d_out = {heads} × {d_out} = {width}", heads=heads, d_out=d_out,
                         width=width, color=style.ACCENT),
                  muted(book, "原来每头 d_out = {book_d_out}：拼接宽度 {heads} × {book_d_out} = {book_width}",
                        book_d_out=book.index("wrap.book_d_out", r.book_d_out), heads=heads,
                        book_width=book.index("wrap.book_width", r.book_width))
                  ).arrange(DOWN, aligned_edge=LEFT, buff=0.2)
    place(VGroup(call, flow, sums).arrange(DOWN, buff=0.5), most=1.2)
    return [call, flow, sums]


def param_rows(s: Any, r: Any) -> list:
    """3.3 as a table, term by term: [the sizes, W_query, W_key, W_value, Q/K/V subtotal,
    out_proj.weight, out_proj.bias, the total, the note]."""
    book = s.book
    square = book.coords("params.square", (r.d_model, r.d_model))
    linear = code(book, "nn.Linear(D, D, bias=False)", color=style.MUTED)
    rows = [[code(book, n, color=style.QUERY), linear.copy() if k else linear, muted(book, "{}", square),
             big_number(book, f"params.w_{n[2:]}", r.weight)] for k, n in enumerate(("W_query", "W_key", "W_value"))]
    total = book.math(r"@D^{@}+D", book.index("params.coefficient", r.coefficient), book.index("params.power", r.power),
                      color=style.TRACK, size=style.TITLE_SIZE)
    rows += [[s.line("小计", color=style.ACCENT), code(book, "{} × D × D", book.index("params.projections", r.projections),
                                                        color=style.ACCENT), None,
              big_number(book, "params.qkv", r.qkv, color=style.ACCENT)],
             [code(book, "out_proj.weight", color=style.KEY), code(book, "nn.Linear(D, D)", color=style.MUTED),
              muted(book, "{}", square), big_number(book, "params.out_weight", r.out_weight)],
             [code(book, "out_proj.bias", color=style.KEY), None,
              muted(book, "{}", book.coords("params.bias_shape", (r.d_model,))),
              big_number(book, "params.out_bias", r.out_bias)],
             [s.line("合计", color=style.TRACK), total, None, big_number(book, "params.total", r.total, style.TRACK)]]
    lines = table(rows, gap=0.6, aligns=(LEFT, LEFT, LEFT, RIGHT))
    sizes = s.line("D = {d_model}，H = {heads}，每头 d = D/H = {head_dim}：拆头只改变形状，不改变参数个数",
                   d_model=book.index("params.d", r.d_model), heads=book.index("params.heads", r.heads),
                   head_dim=book.index("params.head_dim", r.head_dim), size=style.LABEL_SIZE)
    note = s.line("这只是一个注意力模块的参数，不是整个模型。", color=style.MASK)
    whole = VGroup(sizes, lines, note).arrange(DOWN, buff=0.4, aligned_edge=LEFT)
    place(whole, most=1.15)
    return [sizes, *lines, note]


def shape_chain(s: Any, r: Any) -> list:
    """The shapes exercise: each line of the forward pass with the shape it makes; the three
    asked for in the tracked colour."""
    book = s.book
    swap = {f"dim{k}": book.index(f"shapes.swap[{k}]", v) for k, v in enumerate(r.swap)}
    keys = {f"dim{k}": book.index(f"shapes.key_swap[{k}]", v) for k, v in enumerate(r.key_swap)}
    steps = [(code(book, "q = W_query(x)"), "[B, T, D_o]", "projected", None),
             (code(book, "q = q.view(B, T, H, d)"), "[B, T, H, d]", "split", None),
             (code(book, "q = q.transpose({dim0}, {dim1})", **swap), "[B, H, T, d]", "per_head", "← Q 分头后"),
             (code(book, "s = q @ k.transpose({dim0}, {dim1})", **keys), "[B, H, T, T]", "scores", "← 分数"),
             (code(book, "z = (a @ v).transpose({dim0}, {dim1})", **swap), "[B, T, H, d]", "back", None),
             (code(book, "z = z.reshape(B, T, D_o)"), "[B, T, D_o]", "merged", "← 合并后")]
    rows = []
    for line, axes, name, answer in steps:
        color = style.TRACK if answer else style.TEXT
        shape = book.text("{}", book.coords(f"shapes.{name}", getattr(r, name)), color=color,
                          size=style.BODY_SIZE)
        rows.append([line, muted(book, axes), shape, s.line(answer, color=color) if answer else None])
    lines = table(rows, gap=0.6, row_h=0.62)
    d_model, heads = book.index("shapes.d_model", r.d_model), book.index("shapes.heads", r.heads)
    sizes = s.line("每头 d = D_o / H = {d_model} / {heads} = {head_dim}", d_model=d_model, heads=heads,
                   head_dim=book.index("shapes.head_dim", r.head_dim), color=style.ACCENT)
    place(VGroup(sizes, lines).arrange(DOWN, buff=0.45, aligned_edge=LEFT), most=1.15)
    return [sizes, *lines]
