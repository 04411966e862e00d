"""The backend's one table: the functions NetworkX is told about (read without importing the
library) are exactly the implemented ones, and ``import networkx`` stays light."""

from __future__ import annotations

import subprocess
import sys

from frontier_nx import FUNCTIONS, get_info, registry
from frontier_nx.functions import FAMILY
from frontier_nx.interface import BackendInterface


def test_the_functions_networkx_is_told_about_are_the_implemented_ones():
    implemented = registry.implementations()
    assert set(FUNCTIONS) == set(implemented)
    assert set(get_info()["functions"]) == set(implemented)
    assert all(getattr(BackendInterface, name) is implemented[name] for name in implemented)


def test_each_function_lives_in_the_family_module_the_table_names():
    for name, function in registry.implementations().items():
        assert function.__module__ == f"frontier_nx.{FAMILY[name]}", name


def test_the_interface_has_no_function_the_table_lacks():
    assert not hasattr(BackendInterface, "no_such_function")
    assert registry.implementation("no_such_function") is None


def test_the_backend_info_module_imports_neither_numba_nor_the_library():
    code = ("import sys\nimport frontier_nx\nfrontier_nx.get_info()\n"
            "print(sorted(m for m in ('numba', 'numpy', 'algorithms', 'operators', 'frontier')"
            " if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_an_unknown_function_is_declined_with_the_reason():
    assert "not implemented" in registry.declined("no_such_function", (), {})
