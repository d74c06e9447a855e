"""4.9 练习与答案: each exercise as a question card, a pause for the class, then its answer,
computed and drawn: 3.1 weights aligned by transposing, 3.2 the wrapper's width, 3.3 the
parameters of one attention module, and four supplementary exercises on masks and shapes."""
import re

from scenes.clips.exercises import answers
from scenes.compute import exercise_sources, exercises as compute
from scenes.kit.text import lang, style
from scenes.kit.compose import quiz
from scenes.kit.draw.anim import Appear
from scenes.kit.scene.base import ClipScene
from scenes.kit.scene.inputs import InputError, integer
from scenes.kit.scene.clip import Clip, Option
from scenes.kit.draw.exact import code_name, fraction_rows
from scenes.kit.compose.sheets import in_turn

BOOK_PARAMS = (768, 12)     # 3.3: GPT-2 small, D = 768, H = 12
BOOK_SHAPES = (12, 3)       # the shapes exercise: D_o = 12, H = 3
MAX_D, MAX_H, MAX_PAUSE = 4096, 64, 30
EXERCISES = ("3.1", "3.2", "3.3", "zeros", "shapes", "dim", "diagonal")   # book order

# What each drawn block is: its name's colour (name tag, shape tag, header) and its frames' (the
# entries' cells), or one role for both; read by tests/support/contract.block_problems from what is drawn.
BLOCKS = {"align.linear": ("query", "grid"), "align.v1": ("query", "grid"), "align.x": ("text", "grid"),
          "align.out_v1": ("value", "grid"), "align.out_v2": ("value", "grid"), "wrap.head[0]": ("query", "grid"),
          "wrap.head[1]": ("key", "grid"), "wrap.head[2]": ("value", "grid"), "wrap.head[3]": ("accent", "grid"),
          "wrap.concat": ("text", "grid"), "zeros.masked": ("muted", "grid"), "zeros.frac": ("muted", "heat"),
          "zeros.weights": ("muted", "heat"), "zeros.sums": ("accent", "grid"), "dim.scores": ("muted", "grid"),
          "dim.right": ("muted", "heat"), "dim.right_rows": ("accent", "grid"), "dim.wrong": ("mask", "heat"),
          "dim.wrong_rows": ("accent", "grid"), "dim.wrong_cols": ("text", "grid"), "diag.masked": ("muted", "grid"),
          "diag.visible": ("accent", "grid"), "diag.weights": ("muted", "heat")}
# What the lecturer says in each step (the caption is its one-line summary), keyed "EXERCISE.STEP";
# 3.3's opening, said and on its card, chosen by whether the sizes are GPT-2's.
WORDS = lang.words("exercises")
NARRATION, INTRO = WORDS["narration"], WORDS["intro"]


def rules(raw: dict) -> dict:
    pause = integer(raw.get("pause", 3), "pause", 0, MAX_PAUSE)
    text = str(raw.get("only", ",".join(EXERCISES)))
    asked = [s for s in re.split(r"[,\s]+", text.strip()) if s]
    if not asked:
        raise InputError("only", text, f"name at least one exercise: {', '.join(EXERCISES)}")
    unknown = [name for name in asked if name not in EXERCISES]
    if unknown:
        raise InputError("only", text, f"unknown exercise '{unknown[0]}'; valid: {', '.join(EXERCISES)}")
    given_d, given_h = raw.get("d_model"), raw.get("heads")
    d = integer(given_d, "d_model", 1, MAX_D) if given_d is not None else None
    h = integer(given_h, "heads", 1, MAX_H) if given_h is not None else None
    if d is None and h is None:
        params, shapes = BOOK_PARAMS, BOOK_SHAPES
    else:           # one model for both exercises; a missing one is GPT-2's
        params = shapes = (d or BOOK_PARAMS[0], h or BOOK_PARAMS[1])
        if params[0] % params[1]:
            field = "heads" if h is not None else "d_model"
            raise InputError(field, str(given_h if h is not None else given_d),
                             f"D = {params[0]} is not divisible by H = {params[1]}: "
                             "each head needs D/H features")
    return {"only": [e for e in EXERCISES if e in asked], "pause": pause, "params": params, "shapes": shapes}


class Exercises(ClipScene):
    spec = Clip(
        name="exercises", section="4.9", title="练习与答案",
        summary="4.9 习题 3.1–3.3 与补充题：提问、停顿，再计算并画出答案",
        rules=rules,
        defaults={"pause": 3},
        options=(
            Option("d-model", f"D for 3.3 and the shapes (1-{MAX_D}; default: the book's 768 and 12)"),
            Option("heads", f"H for 3.3 and the shapes (1-{MAX_H}, divides D; default: the book's 12 and 3)"),
            Option("pause", f"seconds to think before each answer (0-{MAX_PAUSE})"),
            Option("only", f"a subset, comma-separated: {','.join(EXERCISES)}"),
        ),
    )

    def compute(self):
        i = self.inputs
        return {"3.1": compute.align_versions(), "3.2": compute.wrapper_width(),
                "3.3": compute.attention_params(*i["params"]), "zeros": compute.zero_scores(),
                "shapes": compute.head_shapes(*i["shapes"]), "dim": compute.wrong_axis(),
                "diagonal": compute.diagonal_rows()}

    def provenance(self):
        return exercise_sources.sources(self.result)

    def kinds(self) -> dict:
        return exercise_sources.KINDS

    def construct(self):
        self.storyboard(*[getattr(self, "ex_" + name.replace(".", "_")) for name in self.inputs["only"]])

    def header(self, name):
        """'习题 3.1' for the book's exercises, '补充题 1' for the supplementary ones."""
        if name[0].isdigit():
            return self.book.compose("习题 {}", self.book.section(f"ex.{name}", name))
        return self.book.compose("补充题 {}", self.book.index(f"ex.{name}", EXERCISES.index(name) - 2))

    def ask(self, name, caption, lines, **slots):
        """The question, its card and the pause (quiz.ask), said as NARRATION["NAME.ask"];
        {exercise} names it."""
        say = NARRATION[name + ".ask"]
        quiz.ask(self, self.header(name), caption, lines, say, self.inputs["pause"], **slots)

    def answer(self, key, caption, **slots):
        """An answer step of exercise NAME, said as NARRATION[key]: "NAME.answer" or another of its steps."""
        quiz.answer(self, self.header(key.rsplit(".", 1)[0]), caption, NARRATION[key], **slots)

    # -- 3.1 weights aligned by transposing
    def ex_3_1(self):
        r, book = self.result["3.1"], self.book
        v1, v2 = code_name(book, "v1"), code_name(book, "v2")
        self.ask("3.1", "{exercise}：怎样把 {second} 的权重交给 {first}，让两版的输出相同？", [
            book.text("{} 直接保存 [d_in, d_out] 的矩阵，计算 x @ W；", v1),
            book.text("{} 用 nn.Linear，权重存成另一种布局。", v2),
            book.text("怎样把 {second} 的三份权重交给 {first}，让两版输出相同？", first=v1, second=v2)],
            first=v1, second=v2)
        self.answer("3.1.answer", "答案：nn.Linear 存 [d_out, d_in]，是 W 的转置；转置后交给 {first}。",
                    first=v1, second=v2, out_shape=book.coords("align.linear.shape", r.linear[0].shape),
                    in_shape=book.coords("align.v1.shape", r.v1[0].shape))
        quiz.transposed(self, answers.align_weights(book, r, v1, v2))
        diff = book.fmt("align.max_diff", r.max_diff, style.decimals_for([r.max_diff]))
        if r.max_diff == 0:
            self.answer("3.1.same", "对齐后两版的输出完全相同：最大差为 {diff}。", diff=diff)
        else:
            self.answer("3.1.rounding", "对齐后两版的输出只差浮点舍入：最大差 {diff}。", diff=diff)
        in_turn(self, answers.align_outputs(book, r, compute.TOKENS, v1, v2, diff), (1, 2, 1))

    # -- 3.2 the wrapper's width
    def ex_3_2(self):
        r, book = self.result["3.2"], self.book
        sizes = {n: book.index(f"wrap.{n}", getattr(r, n))
                 for n in ("heads", "width", "book_d_out", "book_width")}
        self.ask("3.2", "{exercise}：两个独立的头拼接后总宽度要为 {width}，每个头的 d_out 应是多少？", [
            book.text("MultiHeadAttentionWrapper 把 {} 个独立的因果注意力头", sizes["heads"]),
            book.text("沿最后一维拼接；原来每头 d_out = {book_d_out}，拼接后宽 {book_width}。",
                      book_d_out=sizes["book_d_out"], book_width=sizes["book_width"]),
            book.text("要让拼接后的总宽度为 {}，每个头的 d_out 应是多少？", sizes["width"])], **sizes)
        self.answer("3.2.answer", "答案：拼接宽度 = 头数 × 每头 d_out，"
                    "{width} = {heads} × {d_out}，所以每头 d_out = {d_out}。", **sizes,
                    d_out=book.index("wrap.d_out", r.d_out),
                    head_shape=book.coords("wrap.head_shape", r.outputs[0].shape),
                    concat_shape=book.coords("wrap.concat_shape", r.concat.shape))
        quiz.concatenated(self, answers.wrapper(book, r), r.d_out)

    # -- 3.3 the parameters of one attention module
    def ex_3_3(self):
        r, book = self.result["3.3"], self.book
        sizes = {"d_model": book.index("params.d", r.d_model), "heads": book.index("params.heads", r.heads)}
        gpt2 = (r.d_model, r.heads) == BOOK_PARAMS
        model = {"model": code_name(book, "GPT-2")} if gpt2 else {}
        intro = INTRO["gpt2" if gpt2 else "other"]
        self.ask("3.3", "{exercise}：D = {d_model}、H = {heads}、QKV 无偏置，这个注意力模块有多少个参数？", [
            book.text(intro["card"], **model, **sizes),
            book.text("Q、K、V 的投影不带偏置，输出投影 out_proj 带偏置。"),
            book.text("这个模块一共有多少个可训练参数？")], intro=book.compose(intro["said"], **model, **sizes), **sizes)
        rows, made, band = answers.param_rows(book, r)
        band = quiz.room(self, rows, made, band)
        self.answer("3.3.qkv", "Q、K、V：三个 D×D 投影，无偏置：{projections} × {weight} = {qkv}。",
                    projections=book.index("params.projections", r.projections),
                    weight=book.grouped("params.weight", r.weight), qkv=book.grouped("params.qkv", r.qkv),
                    square=book.coords("params.square", (r.d_model, r.d_model)), heads=sizes["heads"],
                    head_dim=book.index("params.head_dim", r.head_dim))
        self.play(Appear(rows[0]))
        quiz.counts(self, rows[1:5], made[0], band, 0.5)
        total = book.grouped("params.total", r.total)
        self.step("加上输出投影的 D×D 权重和 D 个偏置：共 {} 个参数。", total)
        self.narrate(NARRATION["3.3.out"], out_weight=book.grouped("params.out_weight", r.out_weight),
                     out_bias=book.grouped("params.out_bias", r.out_bias),
                     coefficient=book.index("params.coefficient", r.coefficient),
                     power=book.index("params.power", r.power), total=total)
        self.narrate(NARRATION["3.3.sum"], total=total, **{k: book.grouped(f"params.{k}", getattr(r, k))
                                                           for k in ("qkv", "out_weight", "out_bias")})
        quiz.counts(self, rows[5:8], made[1], band, 0.6)
        self.play(Appear(rows[8]), run_time=0.6)

    # -- supplementary: all-zero scores under the causal mask
    def ex_zeros(self):
        r, book = self.result["zeros"], self.book
        t, zero = book.word("zeros.t", len(r.scores)), book.fmt("zeros.score", r.scores[0, 0], 0)
        diagonal = book.index("zeros.diagonal", r.diagonal)
        self.ask("zeros", "{exercise}：{t}个分数全为 {score}，因果掩码后的{t}行权重分别是什么？", [
            book.text("{t}个位置的分数全为 {score}，", t=t, score=zero),
            book.text("加上因果掩码 triu(diagonal={}) 后按行做 softmax。", diagonal),
            book.text("{}行权重分别是什么？", t)], t=t, score=zero, diagonal=diagonal)
        listed = fraction_rows(book, "zeros", r.fractions)
        self.answer("zeros.answer", "答案：{t}行分别为 {rows}。", score=zero, t=t, rows=listed)
        built = answers.zero_answer(book, r)
        made = built[1]
        self.narrate(NARRATION["zeros.cell"], score=zero,
                     row=book.compose("q{}", book.index(f"row[{made.cell[0]}]", made.cell[0])),
                     weight=book.fmt(made.result.label, made.result.value, made.result.decimals))
        quiz.derived(self, built, 3)

    # -- supplementary: the shapes through split, scores and merge
    def ex_shapes(self):
        r, book = self.result["shapes"], self.book
        sizes = {name: book.index(f"shapes.{label}", getattr(r, label)) for name, label in
                 (("d_model", "d_model"), ("heads", "heads"), ("t", "time"), ("b", "batch"))}
        self.ask("shapes", "{exercise}：D_o = {d_model}、H = {heads}、T = {t}、B = {b}，"
                 "Q、分数、合并输出各是什么形状？", [
            book.text("多头注意力：D_o = {d_model}，H = {heads}，T = {t}，B = {b}。", **sizes),
            book.text("列出 Q 分头后、注意力分数、合并头输出的形状。")], **sizes)
        shapes = {n: book.coords(f"shapes.{n}", getattr(r, n))
                  for n in ("per_head", "scores", "merged", "split", "back")}
        self.answer("shapes.answer", "答案：Q 分头后 {per_head}，分数 {scores}，合并后 {merged}。",
                    head_dim=book.index("shapes.head_dim", r.head_dim), **shapes)
        quiz.shapes_flow(self, *answers.shape_chain(book, r))

    # -- supplementary: softmax along the wrong axis
    def ex_dim(self):
        r, book = self.result["dim"], self.book
        axes = {"wrong": book.index("dim.wrong_axis", r.wrong_axis),   # each template takes those it names
                "right": book.index("dim.right_axis", r.right_axis), "one": book.index("dim.one", 1)}
        wrong, right = axes["wrong"], axes["right"]
        self.ask("dim", "{exercise}：为什么 softmax(scores, dim={wrong}) 可能不报错，却不正确？", [
            book.text("scores = X Xᵀ 的形状是 [T, T]：行是查询，列是键。"),
            book.text("softmax(scores, dim={}) 为什么可能不报错，却不正确？", wrong)], **axes)
        self.answer("dim.answer", "答案：dim={right} 沿每一行（所有的键）归一化，每个查询分出去的权重和为 {one}。", **axes)
        self.narrate(NARRATION["dim.cell"],
                     own=book.fmt("dim.scores[0][0]", r.scores[0, 0], style.decimals_for(r.scores)),
                     weight=book.fmt("dim.right[0][0]", r.right[0, 0]))
        quiz.derived(self, answers.dim_right(book, r, right), 2)
        if r.rows_off:
            self.answer("dim.off", "dim={wrong} 不报错，却按列归一化：列和为 {one}，{rows}行的行和都不是 {one}。",
                        **axes, rows=book.word("dim.rows_off", r.rows_off))
        else:
            self.answer("dim.even", "dim={wrong} 不报错，却按列归一化：列和为 {one}，这里行和碰巧也为 {one}。", **axes)
        self.narrate(NARRATION["dim.columns"], book.fmt("dim.wrong_cols[0]", r.wrong_cols[0]))
        quiz.derived(self, answers.dim_wrong(book, r, right, wrong), 2)

    # -- supplementary: the diagonal masked too
    def ex_diagonal(self):
        (keep, hide), book = self.result["diagonal"], self.book
        change = {"old": book.index("diag.keep", keep.diagonal),
                  "new": book.index("diag.hide", hide.diagonal)}
        self.ask("diagonal", "{exercise}：把因果掩码的 diagonal={old} 改成 {new}，第一行会发生什么？", [
            book.text("因果掩码用 triu(ones, diagonal={}) 标出未来的位置。", change["old"]),
            book.text("把 diagonal={old} 改成 {new}，预测第一行会发生什么。", **change)], **change)
        self.answer("diagonal.answer", "答案：对角线也被遮住，第{row}行没有可见的键，softmax 得到 NaN。",
                    row=book.word("diag.first_empty", hide.empty_row_number),
                    visible=book.fmt(f"diag.visible[{hide.first_empty}]", hide.visible[hide.first_empty], 0),
                    keep_visible=book.index("diag.keep_visible", keep.visible[0]),
                    keep_weight=book.fmt("diag.keep_weight", keep.weights[0][0]), **change)
        quiz.derived(self, answers.diagonal_answer(book, keep, hide, *change.values()), 2)
