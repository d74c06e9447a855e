"""A shape option B,T,D (scenes/kit/scene/inputs.py sizes), one rule for future-check and implementation:
each way to break it is refused with the same sentence naming the option, the sizes' limits and
the size that broke them; exit 2 and nothing written, in both clips."""
import pytest

from conftest import assert_refused, cli
from scenes.clips.future_check import scene as future_check
from scenes.clips.implementation import scene as implementation
from scenes.kit.scene.inputs import InputError, sizes

CLIPS = {"future-check": future_check, "implementation": implementation}
LIMITS = {"B": (1, 2), "T": (2, 8), "D": (1, 12)}


@pytest.mark.parametrize("text, says", [
    ("2,6", "(got 2)"), ("2,6,12,1", "(got 4)"), ("", "(got 0)"), ("3,6,12", "(B = 3 is not)"),
    ("2,1,12", "(T = 1 is not)"), ("2,9,12", "(T = 9 is not)"), ("2,6,x", "(D = x is not)"),
    ("2.5,6,12", "(B = 2.5 is not)"), ("-1,6,12", "(B = -1 is not)"), ("2,6,0012", "(D = 0012 is not)")])
def test_each_break_names_the_rule_and_the_size(text, says):
    with pytest.raises(InputError) as err:
        sizes(text, "shape", LIMITS)
    assert str(err.value) == f"--shape '{text}': is B,T,D: 3 whole numbers with B 1-2, T 2-8, D 1-12 {says}"


def test_a_legal_shape_reads_as_whole_numbers():
    assert sizes("2,6,12", "shape", LIMITS) == (2, 6, 12)
    assert sizes(" 1 2  +3 ", "shape", LIMITS) == (1, 2, 3)
    assert sizes("1,8,1", "shape", LIMITS) == (1, 8, 1)


@pytest.mark.parametrize("clip", CLIPS)
def test_both_clips_use_the_one_rule(clip):
    limits = CLIPS[clip].LIMITS
    top = ",".join(str(high) for low, high in limits.values())
    assert CLIPS[clip].rules({"shape": top, "heads": 1})["shape"] == tuple(h for _, h in limits.values())
    for name, (low, high) in limits.items():
        bad = [str(h) for _, h in limits.values()]
        bad[list(limits).index(name)] = str(high + 1)
        with pytest.raises(InputError) as err:
            CLIPS[clip].rules({"shape": ",".join(bad), "heads": 1})
        ranges = ", ".join(f"{n} {lo}-{hi}" for n, (lo, hi) in limits.items())
        assert err.value.field == "shape"
        assert err.value.rule == f"is B,T,D: 3 whole numbers with {ranges} ({name} = {high + 1} is not)"


@pytest.mark.parametrize("clip", CLIPS)
def test_the_cli_refuses_a_bad_shape_in_one_line(tmp_path, clip):
    assert_refused(tmp_path, clip, ["--shape", "2,6"], "--shape")
    code, out = cli(clip, "--shape", "2,99,4", "--out", str(tmp_path / "out"))
    assert code == 2 and "T = 99 is not" in out and not (tmp_path / "out").exists()
