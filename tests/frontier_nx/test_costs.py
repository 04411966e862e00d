"""The backend's cost estimates (:mod:`frontier_nx.costs`): an ordered search pays for reading
the graph above the size where NetworkX's search costs more than reading plus the backend's
search (numpy's import included until a module has imported it); the components pay for the
library's load only on a graph large enough; a search on NetworkX's adjacency hands over to the
arrays only before a level large enough, never under the floor, never where reading cannot
pay."""

from __future__ import annotations

import pytest

from frontier_nx import costs


@pytest.fixture(params=[True, False], ids=["numpy imported", "numpy not imported"])
def numpy_imported(request, monkeypatch):
    """The estimates as in a process that has (or has not) imported numpy and the library."""
    monkeypatch.setattr(costs, "loaded", lambda module: request.param)
    return request.param


def _search_crossing(numpy_imported: bool) -> float:
    """The arcs at which reading plus searching here costs what NetworkX's search costs."""
    fixed = 0.0 if numpy_imported else costs.NUMPY_IMPORT
    return fixed / (costs.NETWORKX_SEARCH - costs.READ - costs.SEARCH)


def test_the_estimates_cover_the_ordered_searches_and_the_components_alone():
    assert costs.pays("pagerank", 10**9, read=False) is None
    assert costs.pays("degree_centrality", 10**9, read=True) is None
    assert costs.ORDERED_SEARCHES.isdisjoint(costs.COMPONENTS)


@pytest.mark.parametrize("name", sorted(costs.ORDERED_SEARCHES))
def test_an_ordered_search_pays_for_reading_the_graph_above_the_crossing(name, numpy_imported):
    crossing = _search_crossing(numpy_imported)
    assert costs.pays(name, int(crossing * 2) + 10, read=False) is True
    if crossing > 2:
        assert costs.pays(name, int(crossing / 2), read=False) is False
    assert costs.pays(name, 10, read=True) is True  # nothing left to pay


@pytest.mark.parametrize("name", sorted(costs.COMPONENTS))
def test_the_components_pay_for_loading_the_library_only_on_a_large_graph(name,
                                                                           numpy_imported):
    if numpy_imported:  # the library loaded as well
        assert costs.pays(name, 10, read=True) is True
        return
    gain = costs.NETWORKX_COMPONENTS - costs.COMPONENTS_HERE
    crossing = costs.LIBRARY_LOAD / gain
    assert costs.pays(name, int(crossing / 2), read=True) is False
    assert costs.pays(name, int(crossing * 2), read=True) is True
    assert costs.pays(name, int(crossing / 2), read=False) is False


def test_a_search_hands_over_before_a_large_level_where_reading_pays(numpy_imported):
    arcs = int(_search_crossing(numpy_imported) * 4) + 100 * costs.HAND_OVER_FLOOR
    assert costs.hand_over(arcs, lambda: arcs)
    assert not costs.hand_over(costs.HAND_OVER_FLOOR - 1, lambda: arcs)
    reading = arcs * costs.READ + (0 if numpy_imported else costs.NUMPY_IMPORT)
    small = int(costs.HAND_OVER_SHARE * reading / costs.NETWORKX_SEARCH) - 1
    assert not costs.hand_over(max(small, 0), lambda: arcs)


def test_a_search_under_the_floor_never_counts_the_arcs():
    def never() -> int:
        raise AssertionError("counted")

    assert not costs.hand_over(costs.HAND_OVER_FLOOR - 1, never)


def test_a_search_never_hands_over_where_reading_cannot_pay(monkeypatch):
    monkeypatch.setattr(costs, "loaded", lambda module: False)
    arcs = int(_search_crossing(False) / 2)
    assert arcs >= costs.HAND_OVER_FLOOR
    assert not costs.hand_over(arcs, lambda: arcs)
