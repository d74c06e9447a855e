"""Builders for the dropout clip: mask bit strings, aligned tables, running-mean bars.

Every number goes through the NumberBook; nothing here computes a drawn value.
"""
from manim import (DOWN, DashedLine, Line, Rectangle, VGroup, VectorizedPoint)

from scenes.kit import style

DECIMALS = 6          # the lab's table shows six decimals
MEAN_DECIMALS = 4     # a sampled running mean: 4 decimals, as the rest of the chapter


def short(values):
    """Fewest decimals that show p or 1/(1-p) exactly (0.5, 2, 1.25), else 6."""
    return style.decimals_for(values, (0, 1, 2, 3, 4, 6))


def bit_color(keep, ignored=False):
    """Kept bits plain, dropped bits in the mask colour; all muted where the mask is ignored (eval)."""
    return style.MUTED if ignored else style.TEXT if keep else style.MASK


def bits(book, label, mask, size=style.NUMBER_SIZE, ignored=False):
    """A mask as its bit string ('101'), one recorded digit per bit."""
    digits = [book.num(f"{label}[{i}]", int(b), 0, size=size, color=bit_color(b, ignored))
              for i, b in enumerate(mask)]
    pitch = max(d.width for d in digits) + 0.06
    for i, d in enumerate(digits):
        d.move_to([i * pitch, 0, 0])
    return VGroup(*digits)


def text(book, template, *slots, color=style.TEXT, size=style.BODY_SIZE):
    """Words from a digit-free template whose {} slots the book filled."""
    return book.text(template, *slots, color=color, size=size)


class RowTable(VGroup):
    """Cells in aligned columns, one row height; `put` places a later cell in a slot.

    rows: lists of Mobjects (None leaves a slot empty). `widths` may be given when
    cells that arrive later (other masks, other pages) are wider than these.
    """

    def __init__(self, rows, widths=None, col_gap=0.45, row_h=0.5):
        super().__init__()
        n_cols = max(len(r) for r in rows)
        widths = widths or column_widths([rows], n_cols)
        xs, x = [], 0.0
        for w in widths:
            xs.append(x + w / 2)
            x += w + col_gap
        self.full_width, self.widths, self.col_gap = x - col_gap, widths, col_gap
        self.anchors = [[VectorizedPoint([xs[c], -i * row_h, 0]) for c in range(n_cols)]
                        for i in range(len(rows))]
        self.ruler = Line([0, 0, 0], [1, 0, 0]).set_opacity(0)   # tracks the table's scale
        self.add(self.ruler, *[a for row in self.anchors for a in row])
        self.cells = [[None] * n_cols for _ in rows]
        self.row_h, self.n_rows, self.n_cols = row_h, len(rows), n_cols
        for i, row in enumerate(rows):
            for c, mob in enumerate(row):
                if mob is not None:
                    self.cells[i][c] = mob.move_to(self.anchors[i][c])
                    self.add(mob)

    def zoom(self):
        return self.ruler.get_length()

    def put(self, mob, i, c):
        """Size and place a new cell (not added to the table)."""
        return mob.scale(self.zoom()).move_to(self.anchors[i][c])

    def row(self, i):
        return VGroup(*[m for m in self.cells[i] if m is not None])

    def col(self, c, rows=None):
        rows = range(self.n_rows) if rows is None else rows
        return VGroup(*[self.cells[i][c] for i in rows if self.cells[i][c] is not None])

    def rule(self, i, first=0, last=None, color=style.GRID_LINE):
        """A line between row i-1 and row i, under columns first..last."""
        last = self.n_cols - 1 if last is None else last
        z = self.zoom()
        y = self.anchors[i][0].get_center()[1] + self.row_h * z / 2
        left = self.anchors[i][first].get_center()[0] - (self.widths[first] + self.col_gap) * z / 2
        right = self.anchors[i][last].get_center()[0] + (self.widths[last] + self.col_gap) * z / 2
        return Line([left, y, 0], [right, y, 0], color=color, stroke_width=2)

    def band(self, rows, color=style.TRACK):
        """A frame around whole rows (e.g. the expectation and the original row)."""
        top = self.anchors[rows[0]][0].get_center()[1] + self.row_h * self.zoom() / 2
        bottom = self.anchors[rows[-1]][0].get_center()[1] - self.row_h * self.zoom() / 2
        box = Rectangle(width=self.width + 0.4, height=top - bottom, stroke_color=color, stroke_width=3)
        return box.move_to([self.get_center()[0], (top + bottom) / 2, 0])


def column_widths(tables, n_cols):
    """The widest cell of each column over several row lists (pages, masks)."""
    widths = [0.0] * n_cols
    for rows in tables:
        for row in rows:
            for c, mob in enumerate(row):
                if mob is not None:
                    widths[c] = max(widths[c], mob.width)
    return widths


def mode_line(book, r, one):
    """Train: p and the scale 1/(1-p); eval: the configured p is ignored, effective p = 0."""
    if r.mode == "eval":
        return text(book, "评估模式 · 配置的 p = {} 被忽略 · 有效 p = {}", book.fmt("p", r.p, short([r.p])),
                    book.fmt("p_eff", r.p_eff, 0), color=style.ACCENT, size=style.LABEL_SIZE)
    return text(book, "训练模式 · p = {} · 保留项 × {}/({}−p) = {}", book.fmt("p", r.p, short([r.p])), one, one,
                book.fmt("scale", r.scale, short([r.scale])), color=style.ACCENT, size=style.LABEL_SIZE)


def value_bars(book, label, values, unit, decimals, spacing, names=(), targets=None, width=0.6):
    """Bars with their numbers on top and position names below; optional dashed targets
    (the original weights) drawn over the bars. Returns (bars, targets, base)."""
    group, marks = VGroup(), VGroup()
    for i, v in enumerate(values):
        x = i * spacing
        bar = Rectangle(width=width, height=max(float(v) * unit, 1e-3), fill_color=style.VALUE,
                        fill_opacity=0.85, stroke_width=0).move_to([x, 0, 0], aligned_edge=DOWN)
        top = float(v) if targets is None else max(float(v), float(targets[i]))
        num = book.num(f"{label}[{i}]", v, decimals, size=style.LABEL_SIZE)
        group.add(VGroup(bar, num.move_to([x, top * unit + 0.08 + num.height / 2, 0])))
        if targets is not None:
            y = float(targets[i]) * unit
            marks.add(DashedLine([x - width / 2 - 0.15, y, 0], [x + width / 2 + 0.15, y, 0],
                                 dash_length=0.1, color=style.TRACK, stroke_width=5).set_z_index(2))
    base = Line([-width / 2 - 0.2, 0, 0], [(len(values) - 1) * spacing + width / 2 + 0.2, 0, 0],
                color=style.GRID_LINE)
    feet = VGroup(*[book.label(n, size=style.LABEL_SIZE, color=style.MUTED)
                    .next_to([i * spacing, 0, 0], DOWN, buff=0.15) for i, n in enumerate(names)])
    return group, marks, VGroup(base, feet)

