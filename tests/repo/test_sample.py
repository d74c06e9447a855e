"""The suite's sample of its costly cases (support/sample.py): the first case always, the same
cases for the same seed (every xdist worker must collect alike), others for another seed, every
case over enough seeds, and all of them with TEST_SAMPLE=all."""
from support.sample import chosen, drawn


def test_the_first_case_and_k_in_all():
    for seed in map(str, range(50)):
        picked = chosen(list("abcdefghij"), 3, seed, "t")
        assert picked[0] == 0 and len(set(picked)) == 3 and all(0 <= i < 10 for i in picked)


def test_the_same_seed_the_same_cases_another_seed_others():
    assert chosen(list("abcdefghij"), 3, "1a2b", "t") == chosen(list("abcdefghij"), 3, "1a2b", "t")
    assert len({tuple(chosen(list("abcdefghij"), 3, str(s), "t")) for s in range(20)}) > 5


def test_every_case_is_checked_over_the_commits():
    seen = set().union(*(chosen(list("abcdefghij"), 2, str(s), "t") for s in range(60)))
    assert seen == set(range(10))


def test_all_runs_every_case_and_a_short_list_is_kept_whole():
    assert chosen(list("abcdefghij"), 2, "all", "t") == list(range(10))
    assert chosen(list("abc"), 5, "7", "t") == [0, 1, 2]


def test_a_group_keeps_k_of_its_members_drawn_alike_for_one_seed():
    assert len(drawn(list("abcd"), 1, "5", "cluster")) == 1
    assert drawn(list("abcd"), 2, "5", "cluster") == drawn(list("abcd"), 2, "5", "cluster")
    assert set().union(*(drawn(list("abcd"), 1, str(s), "cluster") for s in range(40))) == {0, 1, 2, 3}
    assert drawn(list("abcd"), 1, "all", "cluster") == [0, 1, 2, 3]
