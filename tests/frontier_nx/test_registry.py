"""The backend's one table: the functions NetworkX is told about (read without importing the
library) are exactly the implemented ones, and ``import networkx`` stays light."""

from __future__ import annotations

import subprocess
import sys

from frontier_nx import FUNCTIONS, get_info, registry
from frontier_nx.interface import BackendInterface
from frontier_nx.registry import IMPLEMENTATIONS


def test_the_functions_networkx_is_told_about_are_the_implemented_ones():
    assert set(FUNCTIONS) == set(IMPLEMENTATIONS)
    assert set(get_info()["functions"]) == set(IMPLEMENTATIONS)
    assert all(callable(getattr(BackendInterface, name)) for name in IMPLEMENTATIONS)


def test_the_backend_info_module_imports_neither_numba_nor_the_library():
    code = ("import sys\nimport frontier_nx\nfrontier_nx.get_info()\n"
            "print(sorted(m for m in ('numba', 'numpy', 'algorithms', 'operators', 'frontier')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_an_unknown_function_is_declined_with_the_reason():
    assert "not implemented" in registry.declined("no_such_function", (), {})
