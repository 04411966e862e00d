"""The backend's import is light: loading ``frontier_nx.interface`` and answering ``can_run``
and ``should_run`` import neither numpy, scipy, Numba, the conversion nor the library, and of
the family modules only those of the functions asked about (a call that stays in NetworkX pays
none of the rest); :class:`frontier_nx.lazy.LazyModule` imports its module on the first
attribute read."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from algorithms import CATALOG
from frontier.runtime.cuda_support import driver_found
from frontier_nx.functions import FAMILY
from frontier_nx.lazy import LazyModule

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("numpy", "scipy", "numba", "frontier", "algorithms", "operators")


def _fresh(code: str) -> str:
    """What ``code`` prints in a fresh interpreter that imports this checkout's packages."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, env=env, timeout=120, check=True)
    return done.stdout.strip()


def test_a_lazy_module_imports_on_the_first_attribute_read():
    printed = _fresh("""
        import sys
        from frontier_nx.lazy import LazyModule
        fractions = LazyModule("fractions")
        before = "fractions" in sys.modules
        half = fractions.Fraction(1, 2)
        print(before, "fractions" in sys.modules, half == 0.5)
    """)
    assert printed == "False True True"


def test_a_lazy_module_reads_the_modules_attributes():
    import math
    lazy = LazyModule("math")
    assert lazy.pi is math.pi and lazy.sqrt(4.0) == 2.0
    assert "imported" in repr(lazy)


def test_loading_the_backend_and_declining_a_call_import_nothing_heavy():
    printed = _fresh(f"""
        import sys
        import networkx as nx
        from frontier_nx.interface import BackendInterface as backend
        G = nx.gnm_random_graph(2000, 40000, seed=1)
        assert backend.can_run("connected_components", (G,), {{}}) is True
        assert isinstance(backend.should_run("connected_components", (G,), {{}}), str)
        assert isinstance(backend.should_run("pagerank", (nx.path_graph(5),), {{}}), str)
        print(sorted(name for name in {HEAVY!r} if name in sys.modules))
        print(sorted(name for name in sys.modules if name.startswith("frontier_nx.")))
    """)
    heavy, backend = printed.splitlines()
    assert heavy == "[]"
    assert backend == str(["frontier_nx.bulk", "frontier_nx.centrality", "frontier_nx.components",
                           "frontier_nx.costs", "frontier_nx.functions", "frontier_nx.interface",
                           "frontier_nx.lazy", "frontier_nx.registry"])  # the families asked


def test_a_partial_read_of_a_breadth_first_generator_imports_nothing_heavy():
    """Under ``backend_priority`` the generator runs here on NetworkX's adjacency: its first
    levels import neither numpy nor the library, and read no arrays."""
    printed = _fresh(f"""
        import sys
        from itertools import islice
        import networkx as nx
        G = nx.gnm_random_graph(8000, 40000, seed=1)
        with nx.config.backend_priority(algos=["frontier"]):
            layers = list(islice(nx.bfs_layers(G, 0), 3))
            edges = list(islice(nx.bfs_edges(G, 0), 20))
        assert layers == list(islice(nx.bfs_layers(G, 0), 3))
        assert edges == list(islice(nx.bfs_edges(G, 0), 20))
        converted = G.__networkx_cache__["backends"]["frontier"].values()
        print(sorted(name for name in {HEAVY!r} if name in sys.modules))
        print([graph.read for graph in converted])
    """)
    heavy, read = printed.splitlines()
    assert heavy == "[]" and read == "[False]"


def test_a_conversion_reads_nothing_before_a_call_needs_it():
    printed = _fresh(f"""
        import sys
        import networkx as nx
        from frontier_nx.interface import BackendInterface as backend
        G = nx.gnm_random_graph(200, 1000, seed=1)
        converted = backend.convert_from_nx(G, edge_attrs={{"weight": 1}})
        print(sorted(name for name in {HEAVY!r} if name in sys.modules), converted.read)
        print(len(converted.heads), converted.read, converted.nodes == list(G))
    """)
    before, after = printed.splitlines()
    assert before == "[] False"
    assert after == "2000 True True"


def test_an_ordered_search_that_reads_the_graph_imports_no_algorithm_nor_operator():
    """Where reading pays (here NetworkX's search is made costlier than the measured one), the
    search hands over to the arrays, scanned by a compiled level scan (numpy, Numba and the
    library's runtime), and neither the library's algorithms nor its operators are imported."""
    printed = _fresh(f"""
        import sys
        import numpy
        import networkx as nx
        from frontier_nx import costs
        costs.NETWORKX_SEARCH = 1e-5
        G = nx.gnm_random_graph(8000, 40000, seed=1)
        with nx.config.backend_priority(algos=["frontier"]):
            lengths = nx.single_source_shortest_path_length(G, 0)
        assert list(lengths.items()) == list(nx.single_source_shortest_path_length(G, 0).items())
        converted = G.__networkx_cache__["backends"]["frontier"].values()
        print(sorted(name for name in {HEAVY!r} if name in sys.modules))
        print([graph.read for graph in converted])
    """)
    heavy, read = printed.splitlines()
    assert "'algorithms'" not in heavy and "'operators'" not in heavy and read == "[True]"


def test_a_call_that_runs_here_imports_its_family_and_its_algorithm_alone(tmp_path):
    """pagerank run by the backend imports its family module and the library's PageRank, none of
    the other families or algorithms, nor numba.cuda where no NVIDIA driver is found."""
    printed = _fresh(f"""
        import os, sys
        os.environ.pop("NUMBA_ENABLE_CUDASIM", None)
        os.environ["FRONTIER_CACHE_DIR"] = {str(tmp_path)!r}
        import networkx as nx
        G = nx.gnm_random_graph(200, 1000, seed=1)
        ranks = nx.pagerank(G, backend="frontier")  # run here, whatever should_run says
        assert abs(sum(ranks.values()) - 1) < 1e-9
        print(sorted(m for m in sys.modules if m.startswith(("frontier_nx.", "algorithms."))))
        print(any(m == "numba.cuda" or m.startswith("numba.cuda.") for m in sys.modules))
    """)
    modules, cuda = printed.splitlines()
    imported = set(ast.literal_eval(modules))
    families = {f"frontier_nx.{family}" for family in set(FAMILY.values())}
    algorithms = {entry.run.__module__ for entry in CATALOG.values()}
    assert imported & families == {f"frontier_nx.{FAMILY['pagerank']}"}
    assert imported & algorithms == {"algorithms.pagerank"}
    assert cuda == str(driver_found())
