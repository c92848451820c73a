"""What the tamper check's probes cost each checked answer under `gpumeter evaluate`.

Every check of an answer reads the interpreter's hooks and levers twice, at its start and end
(issue 50: a gc callback, a signal handler and its timer, an excepthook... that runs while a check
runs). Those reads are the probes `_evaluate_child._probes()` builds; the compiled capture calls
each and compares the value. This times the calls alone (the comparison adds a little), in this
process, with the interpreter's own modules and gpumeter imported:

    PYTHONPATH=python python bench/python/check_probes_cost.py [--reads 2000]

It prints the number of probes, the microseconds one read of all of them takes (median of
--rounds rounds of --reads reads), the cost per check (two reads), and the slowest probes. The
driver spends a bounded share of the measurement's time on checks (check_probability), so a
costlier check means fewer answers checked, not a longer measurement.
"""
import argparse
import os
import statistics
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reads", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    from gpumeter import _evaluate_child
    probes = _evaluate_child._probes()

    def read_all() -> None:
        for _, fn, fn_args in probes:
            fn(*fn_args)

    read_all()
    rounds = []
    for _ in range(args.rounds):
        start = time.perf_counter()
        for _ in range(args.reads):
            read_all()
        rounds.append((time.perf_counter() - start) / args.reads * 1e6)
    each = []
    for key, fn, fn_args in probes:
        start = time.perf_counter()
        for _ in range(200):
            fn(*fn_args)
        each.append(((time.perf_counter() - start) / 200 * 1e6, key))
    one = statistics.median(rounds)
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load}")
    print(f"{len(probes)} probes: {one:.1f} us a read (rounds {min(rounds):.1f} to "
          f"{max(rounds):.1f}), {2 * one:.1f} us a check (two reads)")
    for cost, key in sorted(each, reverse=True)[:5]:
        print(f"  {cost:7.2f} us  {key}")


if __name__ == "__main__":
    main()
