"""Benchmarks: the suite (``python -m bench all --out results/``), the balancer comparison
(``bench/balancers.py``) and the GPU script (``bash bench/gpu.sh``)."""
