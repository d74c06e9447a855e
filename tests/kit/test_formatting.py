"""style.format_number against the display rules written again in tests/support/formatting.py (exact
decimal arithmetic): every magnitude from 1e-300 to 1e300, both signs, values on a rounding
half, every precision a clip asks for."""
import math

from hypothesis import example, given, settings, strategies as st

from support.formatting import LONGEST, MINUS, drawn_text
from scenes.kit.text.style import format_number

MAGNITUDES = st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False)
SIGNED = st.builds(lambda m, s: m * s, MAGNITUDES, st.sampled_from((1.0, -1.0)))
HALVES = st.builds(lambda n, d: (n + 0.5) / 10 ** d, st.integers(-10 ** 6, 10 ** 6), st.integers(0, 6))


@settings(max_examples=1500, deadline=None)
@given(value=st.one_of(SIGNED, HALVES, st.floats(-1e4, 1e4)), decimals=st.integers(0, 6))
@example(value=0.00001, decimals=4)
@example(value=-0.00004, decimals=4)
@example(value=-3.17e-281, decimals=4)
@example(value=99999.99995, decimals=4)
@example(value=-0.0, decimals=4)
def test_format_number_follows_the_display_rules(value, decimals):
    text = format_number(value, decimals)
    assert text == drawn_text(value, decimals)
    assert len(text) <= LONGEST and "-" not in text
    if value != 0:                         # a value that is not zero never reads as zero
        assert float(text.replace(MINUS, "-")) != 0


@given(value=st.integers(-10 ** 9, 10 ** 9))
def test_whole_numbers_are_drawn_as_they_are(value):
    assert format_number(value) == drawn_text(value, None) == str(value).replace("-", MINUS)


def test_the_spelled_out_values():
    assert [format_number(v) for v in (math.inf, -math.inf, math.nan)] == ["\u221e", MINUS + "\u221e", "NaN"]
    assert format_number(0.4223, 4) == "0.4223" and format_number(1e87, 4) == "1.000e+87"


def test_the_oracle_check_lets_a_tie_round_either_way_and_nothing_more():
    """A value an ulp from a decimal tie (−10523.9475 summed in torch's order is
    −10523.947499999998) may be drawn either way; a digit off is still named."""
    from support.contract_values import agrees
    assert agrees("\u221210523.948", -10523.947499999998) and agrees("\u221210523.947", -10523.947499999998)
    assert not agrees("\u221210523.949", -10523.947499999998)
    assert agrees("0.3074", 0.30739649999999996) and not agrees("0.3075", 0.30739649999999996)
    assert not agrees("20000.0001", 20000.0)
