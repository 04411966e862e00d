"""``frontier.random`` / ``frontier.random_bits``: counter-based SplitMix64, the same bits on the
host, in functors on every target, and in the simulator."""

from __future__ import annotations

import numpy as np
import pytest

from frontier import random, random_bits, resolve_target
from frontier.testing.random_reference import (
    SplitMix64,
    reference_random,
    reference_random_bits,
)
from operators import compute

U64 = 2 ** 64
SEEDS_AND_KEYS = [(0, 0), (0, 1), (1, 0), (42, 7), (-1, 5), (123456789, -3),
                  (2 ** 63 + 5, 2 ** 64 - 1), (2 ** 63 - 1, 2 ** 32)]


def test_the_reference_generator_reproduces_published_splitmix64_outputs():
    # Vigna's splitmix64.c seeded with 0, and Rosetta Code's SplitMix64 task seeded with 1234567.
    zero, other = SplitMix64(0), SplitMix64(1234567)
    assert [zero.next() for _ in range(3)] == [
        0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    assert [other.next() for _ in range(2)] == [6457827717110365317, 3203168211198807973]


@pytest.mark.parametrize(("seed", "key"), SEEDS_AND_KEYS)
def test_host_calls_give_the_reference_values(seed, key):
    bits = random_bits(seed, key)
    assert isinstance(bits, np.uint64) and int(bits) == reference_random_bits(seed, key)
    assert random(seed, key) == reference_random(seed, key)


def test_the_definition_is_pinned():
    assert int(random_bits(0, 0)) == 12035550249420947055
    assert random(0, 0) == 0.6524484863740322


def test_numpy_integers_and_python_ints_are_taken_modulo_2_64_alike():
    assert random_bits(np.int32(-3), np.uint8(4)) == random_bits(U64 - 3, 4)
    assert random_bits(np.uint64(U64 - 1), 9) == random_bits(-1, 9) == random_bits(2 * U64 - 1, 9)


@pytest.mark.parametrize("bad", [0.5, "1", None, True, np.float64(2.0)])
@pytest.mark.parametrize("fn", [random, random_bits], ids=lambda f: f.__name__)
def test_a_non_integer_seed_or_key_is_a_type_error_naming_it(fn, bad):
    with pytest.raises(TypeError, match=rf"frontier\.{fn.__name__}: seed must be an integer"):
        fn(bad, 1)
    with pytest.raises(TypeError, match=rf"frontier\.{fn.__name__}: key must be an integer"):
        fn(1, bad)


def draw(v, bits, floats, seed):
    bits[v] = random_bits(seed, v)
    floats[v] = random(seed, v)


@pytest.mark.parametrize("seed", [0, 42, -7, np.uint64(2 ** 63 + 5)],
                         ids=["0", "42", "-7", "2**63+5"])
def test_a_functor_with_the_seed_as_state_draws_the_reference_values(target, seed):
    n = 40
    bits, floats = target.zeros(n, np.uint64), target.zeros(n, np.float64)
    compute(None, n, draw, bits, floats, seed, target=target)
    assert target.to_host(bits).tolist() == [reference_random_bits(int(seed), k) for k in range(n)]
    assert target.to_host(floats).tolist() == [reference_random(int(seed), k) for k in range(n)]


def draw_array_keys(v, narrow, wide, floats, mixed, seed):
    floats[v] = random(seed, narrow[v])
    mixed[v] = random(seed + 3, wide[v] * 1000003 + v)


def test_keys_read_from_arrays_and_computed_in_a_functor_match_the_host(target):
    # int32 elements, negative ones included, are taken modulo 2**64 as on the host. (The
    # computed key reads an int64 array: the simulator keeps int32 element arithmetic at 32 bits,
    # frontier.runtime.simulator.)
    narrow = np.array([-5, 0, 7, 2 ** 31 - 1, -(2 ** 31)], dtype=np.int32)
    wide = narrow.astype(np.int64)
    floats, mixed = target.zeros(narrow.size, np.float64), target.zeros(narrow.size, np.float64)
    compute(None, narrow.size, draw_array_keys, target.to_device(narrow), target.to_device(wide),
            floats, mixed, 11, target=target)
    assert target.to_host(floats).tolist() == [reference_random(11, int(k)) for k in narrow]
    assert target.to_host(mixed).tolist() == [
        reference_random(14, int(k) * 1000003 + v) for v, k in enumerate(narrow)]


def test_a_non_integer_seed_inside_a_functor_is_refused(target):
    out = target.zeros(2, np.float64)

    def bad(v, out, seed):
        out[v] = random(seed, v)

    with pytest.raises(TypeError, match="seed"):
        compute(None, 2, bad, out, 0.5, target=target)


def test_draws_lie_in_0_1_and_distinct_keys_give_distinct_streams():
    keys = range(2000)
    streams = [[random(seed, k) for seed in range(5)] for k in keys]
    assert all(0.0 <= x < 1.0 for stream in streams for x in stream)
    assert len({tuple(s) for s in streams}) == len(streams)
    assert len({int(random_bits(7, k)) for k in keys}) == len(keys)


def test_the_mean_of_10k_draws_on_the_cpu_is_about_one_half():
    cpu = resolve_target("cpu")
    n = 10_000
    bits, floats = cpu.zeros(n, np.uint64), cpu.zeros(n, np.float64)
    compute(None, n, draw, bits, floats, 2024, target=cpu)
    assert abs(floats.mean() - 0.5) < 0.01
    assert ((floats >= 0.0) & (floats < 1.0)).all()
