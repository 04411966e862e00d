"""The test tiers (tests/tiers.py): each tier's hypothesis profile, a test's own example count
scaled to the tier, and the targets a tier runs."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from tests import tiers


@pytest.mark.parametrize("tier", sorted(tiers.PROFILES))
def test_a_tests_own_example_count_scales_with_its_tier(monkeypatch, tier):
    monkeypatch.setenv("FRONTIER_HYPOTHESIS_PROFILE", tier)
    ratio = tiers.PROFILES[tier] / tiers.PROFILES["default"]
    assert tiers.examples(60) == round(60 * ratio)
    assert tiers.examples(1) == 2  # never fewer than two
    assert settings.get_profile(tier).max_examples == tiers.PROFILES[tier]


def test_the_run_loads_its_tiers_profile():
    assert settings.default.max_examples == tiers.PROFILES[tiers.profile()]


def test_the_tier_runs_the_cpu_target_on_one_and_several_threads_and_marks_the_cuda_one():
    assert tiers.TARGETS[0].values == ("cpu",) and not tiers.TARGETS[0].marks
    threaded = tiers.TARGETS[1]
    assert threaded.values == (tiers.THREADED,) and threaded.marks[0].name == "threads"
    assert tiers.THREADED.threads == tiers.THREADS > 1
    assert tiers.THREADED.grain == tiers.THREADED.part == 1
    assert all(p.values == ("cuda",) and p.marks[0].name == "simulator"
               for p in tiers.TARGETS[2:])


def test_the_target_fixture_leaves_the_threaded_level_to_the_designs_in_the_simulator_tier():
    threaded = [p for p in tiers.FIXTURE_TARGETS if p.values == (tiers.THREADED,)]
    assert len(threaded) == (0 if tiers.SIMULATED else 1)
    assert [p for p in tiers.TARGETS if p.values != (tiers.THREADED,)] == [
        p for p in tiers.FIXTURE_TARGETS if p.values != (tiers.THREADED,)]


def test_the_sessions_own_cpu_target_runs_on_one_thread_unless_the_run_names_a_count():
    from frontier.target import resolve_target

    assert resolve_target("cpu").threads == int(os.environ["FRONTIER_NUM_THREADS"])


def test_graphs_for_the_simulated_gpu_are_tiny():
    class Simulated:
        simulated = True

    class Compiled:
        simulated = False

    assert tiers.most_vertices(Simulated(), 24) == tiers.TINY_VERTICES
    assert tiers.most_vertices(Simulated(), 5) == 5
    assert tiers.most_vertices(Compiled(), 24) == 24
