"""The NetworkX backend registered for every test module of ``tests/frontier_nx``.

Where the package is installed, NetworkX finds the backend through its entry points; in a
checkout used without installing (PYTHONPATH), the fixture registers it the way those entry
points would."""

from __future__ import annotations

import types

import networkx as nx
import pytest
from networkx.utils import backends as nx_backends

from frontier_nx import get_info, registry
from frontier_nx.interface import BackendInterface


def pytest_collection_modifyitems(items: list) -> None:
    """Under a NetworkX older than the backend supports, the backend declines every call
    (``registry.OLDEST_NETWORKX``): its tests are skipped."""
    if registry.networkx_version() < registry.OLDEST_NETWORKX:
        skip = pytest.mark.skip(reason=f"NetworkX {nx.__version__} is older than the backend "
                                "supports")
        for item in items:
            if "frontier_nx" in item.nodeid:
                item.add_marker(skip)


@pytest.fixture(scope="module", autouse=True)
def frontier_backend():
    """The backend as NetworkX's entry points declare it, on the cpu target."""
    with pytest.MonkeyPatch.context() as patch:
        if "frontier" not in nx_backends.backends:
            entry = types.SimpleNamespace(load=lambda: BackendInterface)
            patch.setitem(nx_backends.backends, "frontier", entry)
            patch.setitem(nx_backends.backend_info, "frontier", get_info())
            patch.setattr(nx_backends._dispatchable, "__call__",
                          nx_backends._dispatchable._call_if_any_backends_installed)
            patch.delitem(nx_backends._loaded_backends, "frontier", raising=False)
        if hasattr(nx.config, "warnings_to_ignore"):  # NetworkX >= 3.4
            patch.setattr(nx.config, "warnings_to_ignore",
                          nx.config.warnings_to_ignore | {"cache"})
        config = getattr(nx.config.backends, "frontier", None)
        if config is not None:
            patch.setattr(config, "target", "cpu")
        else:
            patch.setattr(registry, "target", lambda: "cpu")
        yield
