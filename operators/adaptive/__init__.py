"""The adaptive runtime: a graph inspector and a decision maker that choose, at every step of a
traversal, the load balancer, the frontier's representation and the kernel mode (Li & Becchi,
*Deploying Graph Algorithms on GPUs: an Adaptive Solution*, §VI; thresholds as in their
§VII.B). One concept per module:

* :mod:`operators.adaptive.profile`: the **graph inspector**, the graph's profile (|V|, |E|
  and the out-degrees' mean, maximum and variance, computed once per graph and kept with it)
  and a frontier's degree sum;
* :mod:`operators.adaptive.thresholds`: the **thresholds**, from the target's properties,
  overridden by the per-user calibration cache that ``frontier calibrate`` writes;
* :mod:`operators.adaptive.rule`: the **decision maker**, :func:`decide`, a pure function of
  the frontier's size, its degree sum, the graph's profile and the thresholds, and
  :func:`blind`, the first phase over a queue whose length the host does not know;
* :mod:`operators.policy`: the policies that feed the decision maker step by step
  (:class:`AdaptivePolicy`) or run one balancer throughout (:class:`StaticPolicy`), so
  ``traverse`` runs one loop for both.
"""

from __future__ import annotations

from operators.adaptive.profile import GraphProfile, inspect, measure_degree_sum
from operators.adaptive.rule import NEVER, Decision, HandBack, blind, decide
from operators.adaptive.thresholds import (
    CACHE_ENV,
    Thresholds,
    calibration_path,
    check_calibration_output,
    device_thresholds,
    load_calibration,
    save_calibration,
    thresholds_for,
)

__all__ = ["GraphProfile", "inspect", "measure_degree_sum", "Thresholds", "device_thresholds",
           "thresholds_for", "calibration_path", "load_calibration", "save_calibration",
           "check_calibration_output", "CACHE_ENV", "Decision", "HandBack", "NEVER", "decide",
           "blind"]
