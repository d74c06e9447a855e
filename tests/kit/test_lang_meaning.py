"""Sentences mean what their source means: every catalogue entry with two or more slots keeps each
slot's role in English (tests/support/meaning.py: the role words of each slot, written from the
slots' names and the chapter), and every swap of two slots in any entry is named."""
import re

from scenes.kit.text import lang
from support.meaning import NAMED, ORDERED, meaning_problems, swapped


def entries():
    return [(zh, en) for zh, en in lang.catalogue("en").items() if len(set(NAMED.findall(zh))) >= 2]


def test_every_slot_keeps_its_role_in_english():
    problems = [p for zh, en in entries() for p in meaning_problems(zh, en)]
    assert problems == [], f"{len(problems)} problems:\n" + "\n".join(problems[:40])


def test_every_swap_of_two_slots_is_named():
    """Mutation by hand, over the whole catalogue: in each entry, each pair of its slots swapped in
    the English (every occurrence of one put where the other stood)."""
    passed = []
    for zh, en in entries():
        slots = sorted(set(NAMED.findall(zh)))
        for n, a in enumerate(slots):
            for b in slots[n + 1:]:
                if not meaning_problems(zh, swapped(en, a, b)):
                    passed.append(f"{{{a}}} <-> {{{b}}} in {en!r}")
    assert passed == [], f"{len(passed)} swaps pass:\n" + "\n".join(passed[:30])


def test_the_ordered_entries_are_in_the_catalogue():
    assert ORDERED <= set(lang.catalogue("en")), ORDERED - set(lang.catalogue("en"))
