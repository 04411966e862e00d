import cProfile, pstats, time, io
from algorithms import sssp
from frontier import generators
from bench.graphs import build
T = generators.path(7, weights=(1, 5))
for _ in range(3): sssp(T, 0, target="cuda")
pr = cProfile.Profile(); pr.enable()
for _ in range(20): sssp(T, 0, target="cuda")
pr.disable()
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("cumulative").print_stats(28); print(s.getvalue()[:6000])
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(15); print(s.getvalue()[:3500])
