"""Step 5 of the causal-mask clip, 4.4's last paragraph: 如果整行全是负无穷，普通 softmax 会出现 NaN。
padding mask 与因果 mask 叠加后也可能产生空行，尤其是左 padding。The key-padding mask and the causal
mask side by side, their union as one grid (the pads framed as padding, the future as masked, both
−∞), the keys each row still sees (its 0s are the empty rows), the softmax with its NaN rows, the
check the book asks for in its words, and the other side's padding in one line for contrast.
Words: assets/lang/zh/causal_mask_padding.json (captions and narration chosen by the data)."""
from __future__ import annotations

from manim import DOWN, LEFT, UP, SurroundingRectangle, VGroup

from scenes.clips.causal_mask.parts import AREA
from scenes.kit.text import lang, style
from scenes.kit.draw.anim import Appear
from scenes.kit.draw.grids import MatrixGrid
from scenes.kit.compose.arrange import Part, below, beside, beside_or_below
from scenes.kit.page.blocks import arrow, row_of
from scenes.kit.page.marked import column, grid, vector_text
from scenes.kit.text.numbers import NumberBook, Shown
from scenes.kit.page.page import Page, phrase, plan, turn

WORDS = lang.words("causal_mask_padding")
SAID = WORDS["narration"]
CHECK = "检查时既要核对掩码形状，也要确认每一行是否还留有允许访问的位置。"    # the book's words (4.4)


def side_case(p) -> str:
    """left / right, or zero when there are no pads."""
    return "zero" if p.pads == 0 else p.side


def rows_case(rows) -> str:
    return "none" if not len(rows) else "row" if len(rows) == 1 else "rows"


def rows_slots(book: NumberBook, rows, name: str = "pad") -> dict[str, Shown]:
    """{row} or {first} {last}: the empty rows (always the first rows: what a row sees only grows)."""
    if len(rows) == 1:
        return {"row": book.index(f"{name}_row", rows[0])}
    if len(rows) > 1:
        return {"first": book.index(f"{name}_first", rows[0]), "last": book.index(f"{name}_last", rows[-1])}
    return {}


def caption(book: NumberBook, p, causal: bool) -> tuple:
    """The step's caption: which keys are pads, and which rows are left with no key (none are)."""
    s = p.shown
    pads = book.index("pad_pads", s.pads)
    side = book.compose(WORDS["side"][side_case(s) + ("1" if s.pads == 1 else "")], pads=pads)
    result = book.compose(WORDS["result"]["causal" if causal else "open"][rows_case(s.empty_rows)],
                          **rows_slots(book, s.empty_rows))
    return phrase("{side}；{result}。", side=side, result=result)


def narration(book: NumberBook, p, causal: bool, diagonal: int) -> list[tuple]:
    s, o = p.shown, p.other
    pads = book.index("pad_pads", s.pads)
    out = [phrase(SAID["mask"][side_case(s)], pads=pads)]
    own = s.side == "left" and len(s.empty_rows) and len(p.pad_rows) and diagonal == 1 and causal
    case = ("pad." if own else "") + rows_case(s.empty_rows)    # keeping the diagonal saves no pad row
    out.append(phrase(SAID["result"][case], **rows_slots(book, s.empty_rows)))
    out.append(phrase(SAID["check"]))
    if s.pads:
        out.append(phrase(SAID["other"][o.side][rows_case(o.empty_rows)], pads=pads))
    return out


def framed(g: MatrixGrid, pad_keys) -> MatrixGrid:
    """The pad keys' columns framed as padding (a mark of its own, apart from the future's −∞),
    their names muted."""
    cols = [j for j, pad in enumerate(pad_keys) if pad]
    for j in cols:
        if j < len(g.col_labels):
            g.col_labels[j].set_color(style.MUTED)
    if cols:
        boxes = VGroup(*[g.boxes[i][j] for i in range(g.n_rows) for j in cols])
        frame = SurroundingRectangle(boxes, color=style.MUTED, buff=0.04, stroke_width=5)
        g.add(g.book.mark(frame, "padding", [g.labels[i][j] for i in range(g.n_rows) for j in cols]))
    return g


def at(mob, left: MatrixGrid, right: MatrixGrid):
    """'+' or '=' between two grids of a row, at the height of their cells."""
    x = (left.boxes[0][-1].get_right()[0] + right.boxes[0][0].get_left()[0]) / 2
    y = (left.boxes[0][0].get_top()[1] + left.boxes[-1][0].get_bottom()[1]) / 2
    return mob.move_to([x, y, 0])


def other_line(book: NumberBook, p) -> VGroup:
    """The other side's pads in one line: the keys each row sees there, and whether a row is empty."""
    o = p.other
    if not p.shown.pads:
        return VGroup()
    counts = vector_text(book, "pad_other_visible", o.visible, 0)
    return book.text(WORDS["other"][o.side][rows_case(o.empty_rows)], counts=counts,
                     **rows_slots(book, o.empty_rows, "pad_other"), size=style.LABEL_SIZE, color=style.MUTED)


class PaddingStep:
    """The grids and lines of the step, and its pages."""

    def __init__(self, scene) -> None:
        book, r, i = scene.book, scene.result, scene.inputs
        self.scene, self.book, p = scene, book, r.padding
        s, keys, queries = p.shown, scene.key_names, scene.query_names
        cols = dict(col_labels=keys, col_color=style.KEY)
        self.pad = framed(grid(book, "pad_padding", s.padding, 0, row_labels=queries, row_color=style.QUERY,
                               header="padding 掩码", header_color=style.MUTED, **cols), s.pad_keys)
        self.causal = grid(book, "mask", s.causal, 0, header="因果掩码 M" if i["causal"] else "掩码关闭：M 全为零",
                           header_color=style.MASK, **cols)
        self.union = framed(grid(book, "pad_union", s.union, 0, header="两者之和", **cols),
                            s.pad_keys)
        self.visible = column(book, "pad_visible", s.visible, decimals=0, hidden=s.visible == 0,
                              col_labels=["可见数"], col_color=style.ACCENT)
        self.weights = grid(book, "pad_weights", s.weights, hidden=s.hidden, heat="weights", row_labels=queries,
                            row_color=style.QUERY, header="A = softmax(S + M_pad + M)", **cols)
        for j, pad in enumerate(s.pad_keys):
            if pad:
                self.weights.col_labels[j].set_color(style.MUTED)
        self.plus = book.label("+", size=style.TITLE_SIZE, color=style.MUTED)
        self.equals = book.label("=", size=style.TITLE_SIZE, color=style.MUTED)
        self.link = arrow(book)
        self.masks = VGroup(self.pad, self.plus, self.causal)
        self.sum = VGroup(self.equals, self.union, self.visible)
        check = book.label(CHECK, size=style.LABEL_SIZE, color=style.ACCENT)
        self.notes = VGroup(*[m for m in (check, other_line(book, p)) if len(m.family_members_with_points())])
        self.notes.arrange(DOWN, aligned_edge=LEFT, buff=0.2)
        self.caption = caption(book, p, i["causal"])
        self.say = narration(book, p, i["causal"], i["diagonal"])

    def page(self, blocks, reveal, say) -> Page:
        return self.scene.page(self.caption, blocks, reveal, say)

    # -- the ways the masks and their sum are laid out
    def lay_masks(self) -> None:
        row_of([self.pad, self.causal], buff=0.9)
        at(self.plus, self.pad, self.causal)

    def lay_sum(self) -> None:
        """The sum on a line of its own: '=' before it, the visible keys beside it."""
        row_of([self.union, self.visible], buff=0.15)
        self.equals.next_to(self.union.box_group, LEFT, buff=0.3)

    def plus_before(self) -> None:
        self.plus.next_to(self.causal.box_group, LEFT, buff=0.3)

    def in_a_row(self) -> None:
        """padding + causal = sum, on one line."""
        row_of([self.pad, self.causal, self.union], buff=0.9)
        row_of([self.union, self.visible], buff=0.15)
        at(self.plus, self.pad, self.causal)
        at(self.equals, self.causal, self.union)

    def pages(self) -> list[Page]:
        """The masks and their sum on a line, the softmax below; or the masks above, the sum leading to
        the softmax below; or the masks and their sum, then the softmax; or the masks, the sum, the
        softmax; or each mask on a page of its own (large grids with long names)."""
        top = Part(VGroup(self.masks, self.sum), [self.in_a_row])
        masks, total = Part(self.masks, [self.lay_masks]), Part(self.sum, [self.lay_sum])
        bottom = beside_or_below(self.weights, self.notes, gap=0.6, edge=UP)
        say, last = self.say[:2], self.say[2:]
        shown = [[Appear(self.pad), Appear(self.plus), Appear(self.causal)],
                 [Appear(self.equals), Appear(self.union), Appear(self.visible)]]
        soft = [[Appear(self.weights)], [Appear(self.notes)]]
        linked = [shown[0], shown[1] + [Appear(self.link)], soft[0], soft[1]]
        options = [
            [self.page(below(top, bottom, gap=0.45), shown + soft, self.say)],
            [self.page(below(masks, beside(total, self.link, self.weights, gap=0.3), self.notes, gap=0.4),
                       linked, self.say)],
            [self.page(below(masks, total, gap=0.4), shown, say), self.page(bottom, soft, last)],
            [self.page(masks, shown[:1], say[:1]), self.page(total, shown[1:], say[1:]),
             self.page(bottom, soft, last)],
            [self.page(self.pad, [[Appear(self.pad)]], say[:1]),
             self.page(Part(VGroup(self.plus, self.causal), [self.plus_before]),
                       [[Appear(self.plus), Appear(self.causal)]], last[1:]),
             self.page(total, shown[1:], say[1:]), self.page(bottom, soft, last[:1])]]
        return plan(self.book, options, AREA)


def padding_step(scene) -> None:
    step = PaddingStep(scene)
    turn(scene, step.pages(), AREA)
