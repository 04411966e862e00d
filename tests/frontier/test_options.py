"""The options users pass as strings, as enumerations in one module (frontier/options.py; issue
21 item 6): members are their strings, in comparisons, hashes, formatting and messages."""

from __future__ import annotations

import json

import pytest

from frontier.options import BalancerName, Cull, Domain, Kind, Mode, Way, values
from operators import Direction, available_balancers
from operators.cull import check_cull


@pytest.mark.parametrize("option", [Kind, Domain, Way, Mode, Cull, BalancerName])
def test_every_member_is_its_string(option):
    for member in option:
        assert member == member.value and hash(member) == hash(member.value)
        assert str(member) == f"{member}" == member.value and repr(member) == repr(member.value)
        assert json.dumps(member) == json.dumps(member.value)
        assert option(member.value) is member


def test_values_are_plain_strings_in_declaration_order():
    assert values(Kind) == ("sparse", "dense")
    assert all(type(v) is str for v in values(Cull))


def test_the_balancer_names_are_the_registry_s():
    assert set(available_balancers(include_auto=True)) == set(values(BalancerName))


def test_a_direction_given_as_a_string_holds_the_member():
    assert Direction("pull").mode is Way.PULL


def test_a_bad_option_is_refused_with_the_plain_choices():
    with pytest.raises(ValueError, match=r"expected one of \('none', 'bitmap', 'hash'\)"):
        check_cull("bloom")
