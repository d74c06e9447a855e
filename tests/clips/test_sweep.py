"""Every entry of a small grid seen being made: after the first entry's derivation the rest of the
grid lands in a sweep (scenes/kit/motion/sweep.py), each entry with its sources lit, and its record
says which (tests/support/derivations.sweep_problems: lit = recorded = compute's provenance, which
each clip's derivation test checks against torch's Jacobian, where on screen). Planted: a swept
entry lighting the wrong source, and a grid whose rest appears at once.

Motion is proven like numbers: every copy flying into an expression records where it leaves
from (label, box), every carried item the label and box its flight left (`flown_from`); each
start is checked against the term it names, each landing against the label of its place at the
step's end (flight_problems). Planted: copies flying from their sources in reverse order, a
carried grid whose entries land one cell off.

What is lit as each number lands is read back from the screen (scenes/kit/motion/derive_lit.py,
the record's `lit`), not from the plan, and compared with the number's provenance
(tests/support/lit.py), for every swept and derived number of every clip's default and preset.
Planted: each entry of a sweep landing with the next entry's sources lit (the last with the
first's) while its record still names its own."""
import pytest

from conftest import build
from support.cases import PRESETS
from support.derivations import derivations, flight_problems, sweep_problems, swept
from support.dry_runs import dry_manifest
from support.lit import lit_problems

CLIPS = ("weighted-average", "score-grid", "causal-mask", "exercises")   # the clips whose grids are made


def made_grids(manifest, most=16):
    """Grids of at most `most` cells one of whose entries is made on screen (a derivation) in the
    step the grid first shows: every other entry must be made there too, derived or swept.
    grid -> (cells, labels not made)."""
    made = {r["label"]: r["derivation"]["step"] for r in derivations(manifest)}
    grids, first = {}, {}
    for st in manifest["layout"]:
        for it in st["items"]:
            if it["kind"] == "number" and "grid" in it:
                first.setdefault(it["grid"], st["step"])
                grids.setdefault(it["grid"], set()).add((it["row"], it["col"], it["label"]))
    out = {}
    for grid, cells in grids.items():
        labels = {lab for _, _, lab in cells}
        here = {lab for lab in labels if made.get(lab) == first[grid]}
        n = (max(r for r, _, _ in cells) + 1) * (max(c for _, c, _ in cells) + 1)
        if n <= most and here:
            out[grid] = (n, sorted(labels - here))
    return out


@pytest.mark.parametrize("clip", CLIPS)
def test_every_entry_of_a_made_small_grid_is_made_with_its_sources_lit(clip):
    m = build(clip).manifest()
    assert swept(m), f"{clip}: nothing swept"
    assert sweep_problems(m) == []
    assert {g: left for g, (_, left) in made_grids(m).items() if left} == {}


@pytest.mark.parametrize("clip,preset", PRESETS, ids=[f"{c}:{p or 'default'}" for c, p in PRESETS])
def test_what_is_lit_as_each_number_lands_is_its_sources(clip, preset):
    """Every swept and derived number: the dry run's record (shared with test_carried, test_explain)."""
    assert lit_problems(dry_manifest(clip, preset)) == []


def test_a_sweep_lit_one_entry_ahead_is_named(monkeypatch):
    """Each entry lands while the next entry's sources are lit (the last with the first's); the
    record still names its own: only the screen read back at the landing tells."""
    from scenes.kit.motion import sweep
    right_entries, right_sources = sweep.entries_of, sweep.sources_lit
    order: list[str] = []

    def entries_of(book, rest):
        numbers, others = right_entries(book, rest)
        order[:] = [book.meta[id(m)]["label"] for m, _ in numbers]
        return numbers, others

    def ahead(scene, label, shown):
        lit, _, short = right_sources(scene, label, shown)
        after = order[(order.index(label) + 1) % len(order)] if label in order else label
        return lit, right_sources(scene, after, shown)[1], short
    monkeypatch.setattr(sweep, "entries_of", entries_of)
    monkeypatch.setattr(sweep, "sources_lit", ahead)
    m = build("weighted-average").manifest()
    assert sweep_problems(m) == []          # the record alone says nothing is wrong
    problems = lit_problems(m)
    assert any("scores[1][0]: lands while ['x[2][0]', 'x[2][1]'] are lit, not its sources" in p
               for p in problems), problems


def test_a_swept_entry_lighting_the_wrong_source_is_caught(monkeypatch):
    from scenes.kit.motion import sweep
    right = sweep.sources_lit

    def wrong(scene, label, shown):
        lit, frames, short = right(scene, label, shown)
        others = sorted(set(shown) - set(lit) - {label})
        return ([others[0]] + lit[1:] if lit and others else lit), frames, short
    monkeypatch.setattr(sweep, "sources_lit", wrong)
    problems = sweep_problems(build("weighted-average").manifest())
    assert any("not its sources" in p for p in problems), problems


def test_a_grid_whose_rest_appears_at_once_is_caught(monkeypatch):
    from scenes.kit.draw.anim import Appear
    from scenes.kit.motion import made
    monkeypatch.setattr(made, "sweep", lambda scene, rest, *also, run_time=0.6:
                        scene.play(Appear(rest), *also, run_time=run_time))
    grids = made_grids(build("weighted-average").manifest())
    assert any(left for _, left in grids.values()), grids


# -- motion proven like numbers: where each flight starts
@pytest.mark.parametrize("clip", CLIPS)
def test_every_flight_starts_at_its_own_source(clip):
    m = build(clip).manifest()
    assert any(f for r in derivations(m) for f in r["derivation"].get("flights", ())), f"{clip}: no flights"
    assert flight_problems(m) == []


def test_copies_flying_from_their_sources_in_reverse_order_are_caught(monkeypatch):
    from scenes.kit.motion import derive
    right = derive.starts

    def reversed_numbers(d, here):
        found = right(d, here)
        order = [n for n, s in enumerate(found) if s is not None]
        backwards = dict(zip(order, reversed([found[n] for n in order])))
        return [backwards.get(n) for n in range(len(found))]
    monkeypatch.setattr(derive, "starts", reversed_numbers)
    problems = flight_problems(build("causal-mask").manifest())
    assert any("flies from" in p for p in problems), problems


def test_a_carried_grid_landing_one_cell_off_is_caught(monkeypatch):
    """The matched transition pairs each old entry with the next new one."""
    from scenes.kit.motion import carry
    right = carry.matched

    def one_off(book, leaving, incoming):
        pairs = right(book, leaving, incoming)
        return list(zip([a for a, _ in pairs], [b for _, b in pairs][1:] + [b for _, b in pairs][:1]))
    monkeypatch.setattr(carry, "matched", one_off)
    problems = flight_problems(build("causal-mask").manifest())
    assert any("landed from" in p for p in problems), problems
