"""The options users pass as strings, as enumerations in one module (frontier/options.py; issue
21 item 6): members are their strings, in comparisons, hashes, formatting and messages."""

from __future__ import annotations

import json

import pytest

from frontier import validate
from frontier.options import Cull, Domain, Kind, Mode, Way, values
from operators import Direction
from operators.cull import check_cull


@pytest.mark.parametrize("option", [Kind, Domain, Way, Mode, Cull])
def test_every_member_is_its_string(option):
    for member in option:
        assert member == member.value and hash(member) == hash(member.value)
        assert str(member) == f"{member}" == member.value and repr(member) == repr(member.value)
        assert json.dumps(member) == json.dumps(member.value)
        assert option(member.value) is member


def test_values_are_plain_strings_in_declaration_order():
    assert values(Kind) == ("sparse", "dense")
    assert all(type(v) is str for v in values(Cull))


def test_one_of_turns_a_string_into_the_member_of_an_option():
    assert validate.one_of("cull", "hash", Cull) is Cull.HASH
    assert validate.one_of("names", "b", ("a", "b")) == "b"  # a plain list: the string itself


def test_one_of_an_option_lists_its_choices_when_refusing():
    with pytest.raises(ValueError, match="unknown frontier kind 'queue'; expected one of "
                                         "'sparse', 'dense'"):
        validate.one_of("frontier", "queue", Kind, "frontier kind")


@pytest.mark.parametrize("value", [None, 3, ["sparse"], b"sparse", Cull.HASH, "Sparse"])
def test_one_of_refuses_what_is_no_choice_whatever_its_type(value):
    with pytest.raises(ValueError, match="expected one of 'sparse', 'dense'"):
        validate.one_of("frontier", value, Kind)
    with pytest.raises(ValueError, match="expected one of 'a', 'b'"):
        validate.one_of("names", value, ("a", "b"))


def test_one_of_takes_a_member_as_its_string():
    assert validate.one_of("frontier", Kind.DENSE, Kind) is Kind.DENSE
    assert validate.one_of("names", Kind.DENSE, ("sparse", "dense")) is Kind.DENSE


def test_a_direction_given_as_a_string_holds_the_member():
    assert Direction("pull").mode is Way.PULL


def test_a_bad_option_is_refused_with_the_plain_choices():
    with pytest.raises(ValueError, match=r"expected one of \('none', 'bitmap', 'hash'\)"):
        check_cull("bloom")
