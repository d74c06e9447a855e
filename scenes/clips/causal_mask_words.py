"""The causal-mask clip's words: its captions' variants and its narration, each a whole
template (a message id of the English catalogue, assets/lang/en/causal_mask.json)."""

# step 1: the five steps, by (scale, causal)
FIVE = {(True, True): "让查询 {} 走完注意力的五步：点积、缩放、掩码、softmax，再加权求和。",
        (True, False): "让查询 {} 走完注意力的五步：点积、缩放、不加掩码、softmax，再加权求和。",
        (False, True): "让查询 {} 走完注意力的五步：点积、不缩放、掩码、softmax，再加权求和。",
        (False, False): "让查询 {} 走完注意力的五步：点积、不缩放、不加掩码、softmax，再加权求和。"}

# step 1's worked entries said in their place (scenes/kit/derive.py said_as): a weight with no
# visible key or one, an output with none; then the number
WORK = {"nan": "整行都是 −∞，softmax 得到", "one": "唯一可见的键，权重为", "empty": "没有可见的键，输出为"}

# step 2: (M and A on one page, A alone) by case
MASK = {"open": ("因果掩码已关闭：M 全为零；每个查询看见全部的键，每行和为 {one}。",
                 "A = softmax(S + M)：每个查询看见全部的键，每行和为 {one}。"),
        "nan": ("加性掩码 M 在 softmax 前相加，对角线也被遮住；第 {row} 行全为 −∞，得到 NaN。",
                "A = softmax(S + M)：第 {row} 行全为 −∞，得到 NaN。"),
        "none": ("加性掩码 M：这里没有未来位置，M 全为零；没有权重被遮住，每行和为 {one}。",
                 "A = softmax(S + M)：没有权重被遮住，每行和为 {one}。"),
        "some": ("加性掩码 M：未来位置为 −∞，在 softmax 前相加；被遮住的权重恰为零，每行和为 {one}。",
                 "A = softmax(S + M)：被遮住的权重恰为零，每行和为 {one}。")}

# step 3: the other route
ROUTE_NONE = {True: "这里没有未来位置可置零：先 softmax 再置零什么也不改变，P 就是 A。",
              False: "掩码关闭时没有未来位置可置零：先 softmax 再置零什么也不改变，P 就是 A。"}
SHRINK = {"all": "行和小于 {one}",
          "underflow": "被置零的概率都已下溢为零，行和仍为 {one}", "some": "部分行的和小于 {one}"}
# {cut}: what zeroing the future does to the row sums; {route}: the renormalised rows against the −∞ route
ROUTE = {"both": "另一条路：先 softmax 再把未来置零，{cut}；{route}。", "start": "另一条路：先 softmax 再把未来置零，{cut}。",
         "end": "{route}。", "zero": "再把未来置零，{cut}。", "p": "另一条路：先对全部的键做 softmax，得到 P。"}
ROUTE_WORDS = {"underflow": "{}的可见概率全部下溢，除以剩余和得到 NaN，−∞ 路线不会",
               "lost": "每行除以剩余和后与 −∞ 路线相差 {}：下溢损失了精度",
               "equal": "每行除以剩余和后与 −∞ 路线相同",
               "rounding": "每行除以剩余和后与 −∞ 路线只差舍入误差"}
ROUTE_NOTE = {"equal": "与 −∞ 路线的 A 相同", "rounding": "与 −∞ 路线的 A 只差舍入误差",
              "lost": "与 −∞ 路线的 A 不同：下溢损失了精度"}
ROUTE_NOTE_REST = {"equal": "其余各行与 −∞ 路线的 A 相同", "rounding": "其余各行与 −∞ 路线的 A 只差舍入误差",
                   "lost": "其余各行与 −∞ 路线的 A 不同：下溢损失了精度"}

# step 4: the other diagonal, by (causal, variant diagonal) and what it does: {diagonal} and the NaN {row}
DIAGONAL = {
    "open.nan": "若打开因果掩码并把对角线也遮住（diagonal={diagonal}）：第 {row} 行没有可见的键，softmax 得到 NaN。",
    "open.cached": "若打开因果掩码并把对角线也遮住（diagonal={diagonal}）：有缓存时每行仍有可见的键，不出现 NaN。",
    "d0.nan": "把对角线也遮住（diagonal={diagonal}）：第 {row} 行没有可见的键，softmax 得到 NaN。",
    "d0.cached": "把对角线也遮住（diagonal={diagonal}）：有缓存时每行仍有可见的键，不出现 NaN。",
    "d1.nan": "保留对角线（diagonal={diagonal}）：每个位置至少看见自己，第 {row} 行的 NaN 消失。",
    "d1.cached": "保留对角线（diagonal={diagonal}）：每行多看见一个位置：它自己。",
}
DIAGONAL_HEAD = {0: "M：triu(diagonal={})，对角线也为 −∞", 1: "M：triu(diagonal={})，保留对角线"}

# step 5: the verdict on the tracked query {} by (with the mask, without)
VERDICT = {("moved", "moved"): "{} 本就看得见这一行，有无掩码输出都改变",
           ("same", "same"): "{} 的输出有无掩码都不变",
           ("nan", "nan"): "{} 的输出有无掩码都为 NaN",
           ("same", "moved"): "{} 的输出有掩码时不变，无掩码时改变",
           ("same", "nan"): "{} 的输出有掩码时不变，无掩码时为 NaN",
           ("moved", "same"): "{} 的输出有掩码时改变，无掩码时不变",
           ("moved", "nan"): "{} 的输出有掩码时改变，无掩码时为 NaN",
           ("nan", "same"): "{} 的输出有掩码时为 NaN，无掩码时不变",
           ("nan", "moved"): "{} 的输出有掩码时为 NaN，无掩码时改变"}
CHECK = {"whole": "因果性检查：只改 K、V 的最后一行；{}。", "after": "只有最后一行变了：{}。"}
FLAT = {"both": "{} 看得见最后一行，但它的权重改前改后都下溢为零，所以输出不变。",
        "on": "有掩码时 {} 看得见最后一行，但它的权重改前改后都下溢为零，所以输出不变。",
        "off": "无掩码时 {} 看得见最后一行，但它的权重改前改后都下溢为零，所以输出不变。"}

# step 6: the cache view
CACHE = {True: "缓存视角：已有 {cached} 个位置时，新块第一行可看见 {seen} 个位置，而不是重新画三角形。",
         False: "缓存视角（打开因果掩码时）：已有 {cached} 个位置时，新块第一行可看见 {seen} 个位置，而不是重新画三角形。"}
LEGEND = {True: "{} 表示允许参与注意力；红框为遮住的位置。", False: "{} 表示允许参与注意力；这里没有遮住的位置。"}


# ---------------------------------------------------------------- narration
# each route.* sentence ends with a slot: ROUTE_NAN (rows NaN on both routes) or nothing
ROUTE_NAN = "；第 {} 行没有可见的键，两条路线都得到 NaN"

# What the lecturer says in each step (the caption is its one-line summary), from 4.4–4.5 and
# the lab. Keys name the case the data chose; a step's narration says a few of them
# one after another (said(), one narrate() each).
NARRATION = {
    # step 1: the five steps of the tracked query
    "five.scale": "先算 {query} 与每把键的点积，再除以 √dₖ = {scale}：向量越宽，点积的波动越大。",
    "five.raw": "先算 {} 与每把键的点积，得到匹配分数；这里不除以 √dₖ，分数原样进入下一步。",
    "five.some": "掩码在 softmax 前把不许访问的位置设为 −∞，{keys} 把键里它只能看见 {visible} 把。",
    "five.none": "因果掩码只遮住查询之后的位置，而这 {} 把键都不在它之后，掩码不改变任何分数。",
    "five.open": "这里关闭了因果掩码，{} 把键全部可见，掩码后的分数与上一列相同。",
    "five.nan": "掩码在 softmax 前把不许访问的位置设为 −∞，而这一行的 {} 把键全被遮住。"
                "整行都是负无穷，softmax 得到 NaN，输出也是 NaN；检查时要确认每一行还留有可见的键。",
    "out.hidden": "softmax 后被遮住的键权重为零，输出 z{} 是可见值向量的加权平均。",
    "out.all": "softmax 把分数变成和为一的权重，输出 z{} 是值向量的加权平均。",
    # step 1's worked entries, said while they are made
    "work.dot": "以 {name} 为例：查询与这把键逐项相乘再相加，得到分数 {score}。",
    "work.scale": "分数除以 {scale}，缩放后是 {scaled}。",
    "work.weight": "softmax 对可见的分数取指数，再除以它们的和，{name} 的权重是 {weight}。",
    "work.one": "{name} 是唯一可见的键，softmax 把全部权重 {weight} 都给它。",
    "work.out": "输出的第一维 {out}，就是各权重乘以对应的值再相加。",
    # step 2: M (first sentences) and A (last sentences); one page says both
    "mask.some.m": "未来内容正是模型要预测的答案，不能提前参与计算。M 用 triu(diagonal={}) 标出未来位置，"
                   "填入 −∞，在 softmax 前加到分数上。",
    "mask.diag.m": "未来内容正是模型要预测的答案，不能提前参与计算。M 用 triu(diagonal={}) 标出未来位置，"
                   "这里连对角线也标上，填入 −∞，在 softmax 前加到分数上。",
    "mask.some.a": "由于 e 的负无穷次方为零，被遮住的位置得到零概率。剩余位置自动重新归一化，每行和仍为一。",
    "mask.nan.m": "M 用 triu(diagonal={triu}) 标出要遮的位置，填入 −∞，这里连对角线也遮住了。"
                  "于是第 {row} 行的每个位置都是 −∞，没有可见的键。",
    "mask.nan.a": "e 的负无穷次方全为零，这一行 softmax 的分母为零，得到 NaN。"
                  "所以检查时既要核对掩码形状，也要确认每一行是否还留有允许访问的位置。",
    "mask.none.m": "加性掩码只在查询之后的位置放 −∞。这里没有哪把键位于查询之后，triu(diagonal={}) 什么也没标出，M 全为零。",
    "mask.none.a": "softmax 照常进行，没有权重被遮住。每行和为一，与不加掩码时完全相同。",
    "mask.open.m": "这里关闭了因果掩码，M 全为零，每个查询都能看见全部的键，包括它之后的位置。"
                   "做下一 token 预测时不能这样：未来内容正是要预测的答案。",
    "mask.open.a": "softmax 对全部的键归一化，每行和为一，没有哪个权重被强制为零。"
                   "打开因果掩码后，未来位置会先加上 −∞，得到零概率。",
    # step 3: softmax first, then zero the future
    "route.none": "另一条路是先 softmax，再把未来位置的概率置零并重新归一化。这里没有未来位置，置零什么也不改变，P 就是 A。",
    "route.none.open": "另一条路是先 softmax，再把未来位置的概率置零并重新归一化。掩码关闭时没有要置零的位置，"
                       "两条路完全相同，P 就是 A。",
    "route.intro": "另一条路先对全部的键做 softmax，再把被遮住位置的概率置零。",
    "route.p": "先对全部的键做 softmax，得到 P：每行在全部的键上和为一，未来位置也参与了归一化。"
               "这些未来概率随后就要丢弃，却先被算了出来。",
    "route.zero": "再把被遮住位置的概率置零。",
    "shrink.all": "丢掉的概率大于零，剩下的权重不再和为一，右列是每行的剩余和。",
    "shrink.some": "部分行丢掉了概率，剩余和小于一；其余行被置零的概率已下溢为零。",
    "shrink.none": "被置零的概率都已下溢为零，每行剩余和仍为一。",
    "route.equal": "每行再除以剩余和，就与 −∞ 路线的 A 完全相同{nan}。",
    "route.rounding": "每行再除以剩余和，与 −∞ 路线的 A 只差舍入误差：精确算术下两者相同{nan}。",
    "route.lost": "每行再除以剩余和：精确算术下应与 A 相同，这里却差了 {gap}，下溢损失了精度{nan}。",
    "route.underflow": "每行再除以剩余和时，{rows}的可见概率已全部下溢，零除以零得到 NaN，−∞ 路线不会{nan}。",
    "route.why": "实际程序还要顾及数值稳定性，也不必先算随后就要丢弃的未来概率。",
    # step 4: the other diagonal
    "diag0.nan.m": "书中的练习：把对角线也遮住（diagonal={diagonal}），开头的行会怎样？M 的对角线也成了 −∞，第 {row} 行的每个位置都被遮住。",
    "diag0.nan.a": "e 的负无穷次方全为零，普通 softmax 得到 NaN。检查时既要核对掩码形状，也要确认每一行还留有可访问的位置。",
    "diag0.cached.m": "用因果掩码并把对角线也遮住（diagonal={diagonal}）：M 的对角线也成了 −∞。这里前面还有已缓存的位置，每行仍留有可见的键。",
    "diag0.cached.a": "所以 softmax 不会出现 NaN，每行和为一。没有缓存时，同样的掩码会让开头的行整行都是 −∞。",
    "diag1.nan.m": "回到书中的做法：保留对角线（diagonal={diagonal}），让当前位置能看见自己。第 {row} 行尤其依赖这个条件，它前面没有别的位置。",
    "diag1.nan.a": "每个位置至少看见自己，NaN 消失，每行和为一。padding mask 与因果 mask 叠加后也可能产生空行，"
                   "检查时仍要确认每一行还有可见的键。",
    "diag1.cached.m": "回到书中的做法：保留对角线（diagonal={diagonal}），让当前位置能看见自己。和遮住对角线相比，每行都多了它自己这把可见的键。",
    "diag1.cached.a": "softmax 后每行和仍为一，没有空行。书中的因果掩码都保留对角线；没有缓存时，开头的行只靠它才有可见的键。",
    # step 5: the causality check
    "check.ask": "掩码写好后，怎样确认模型没有偷看未来？",
    "check.change": "只改 K、V 的最后一行（第 {row} 行），各加上 {delta}。",
    "check.rule": "如果因果限制正确，看不见这一行的查询，输出就不应改变。",
    "on.hidden": "有掩码时，{query} 看不见第 {row} 行，这一行的权重恰为零，输出一点也没变。",
    "on.flat": "有掩码时 {query} 也看得见第 {row} 行，但这一行分到的权重太小，改动在双精度里没有留下痕迹。",
    "on.moved": "{query} 本就看得见第 {row} 行：它不是这个查询的未来，所以有掩码时输出也变了 {shift}。",
    "on.nan": "有掩码时 {} 没有可见的键，输出本就是 NaN，无从比较。",
    "off.leak": "关掉掩码，它就能看见这一行，输出随之变了 {}：未来的改动影响了过去。",
    "off.also": "关掉掩码后它同样会变，最大变化为 {}。",
    "off.moved": "关掉掩码后它看得见全部的键，输出变了 {}。",
    "off.same": "关掉掩码后它看得见这一行，输出却没有变化：这一行分到的权重太小，改动在双精度里没有留下痕迹。",
    "off.flat": "关掉掩码后也是如此，输出同样没变。",
    "off.nan": "关掉掩码后输出是 NaN，同样无从比较。",
    "check.why": "这样的测试直接检查未来输入会不会影响过去的输出，比只看注意力矩阵是不是三角形更可靠。",
    # step 6: the cache view
    "cache.open": "本例关闭了因果掩码，这里看打开它时的情形。",
    "cache.diag1": "图中 {allowed} 表示允许参与注意力，左图没有缓存，每行只看见对角线及其左边。"
                   "右图是生成时的缓存：已有 {cached} 个位置时，新块第一行可看见 {seen} 个位置，即缓存加上它自己。"
                   "三角形整体右移，而不是从第一列重新开始画。",
    "cache.diag0": "图中 {allowed} 表示允许参与注意力；左图连对角线也遮住，开头的行什么也看不见。"
                   "右图已有 {cached} 个位置时，新块第一行可看见 {seen} 个位置，正好是全部缓存。三角形整体右移，而不是从第一列重新开始画。",
    "cache.full": "图中 {allowed} 表示允许参与注意力。新块只有当前位置，排在已缓存的 {cached} 个位置之后，能看见全部 {seen} 个位置，"
                  "包括它自己，所以没有遮住的格子。",
}


