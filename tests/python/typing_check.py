"""A user's script, checked by `mypy --strict` (tests/python/test_typing.py): measure, compare,
the result fields and the errors' fields, all typed. It also runs (host clock, no GPU needed)."""
from typing import Dict, List, Optional

import gpumeter


def work() -> float:
    return sum(i * 0.5 for i in range(2000))


def main() -> None:
    r: gpumeter.Result = gpumeter.measure(work, timing="host", budget=(1.0, 2.0), flops=2000)
    busy_us: float = r.device_busy.median_us
    kernels: Optional[int] = r.max_n_kernels
    rate: Optional[float] = r.tflops
    samples: List[int] = [s.device_busy_ns for s in r.samples]
    print(f"{r.name}: {busy_us:.3g} us, {kernels} kernels, {rate} TFLOP/s, {len(samples)} samples")
    c = gpumeter.compare({"a": work, "b": work}, timing="host", budget=(1.0, 2.0), verify=False)
    by_name: Dict[str, gpumeter.Result] = c.results
    for cmp in c.comparisons:
        low: Optional[float] = cmp.low
        print(cmp.text, cmp.rule, low, cmp.refusal, by_name[cmp.candidate].n_samples)
    deviations: List[str] = c.record.deviations
    print(len(deviations), r.null_test, r.record.run_id)
    try:
        gpumeter.measure(work, timing="host", budget=(1.0, float("inf")))
    except gpumeter.ConfigError as e:
        argument: Optional[str] = e.argument
        print("refused:", argument)
    try:
        gpumeter.measure(lambda: 1 / 0, timing="host", budget=(1.0, 2.0))
    except gpumeter.UserCodeError as e:
        step: str = e.step
        print(step, e.exception_type, e.exception_message)
    except gpumeter.OffThreadLaunch as e:
        n: int = e.n_kernels
        print(n, e.example_kernel)
    except gpumeter.RecordsLost as e:
        print(e.dropped, e.attempts)
    except (gpumeter.AttributionError, gpumeter.WrongDevice) as e:
        print(e.iteration)
    except gpumeter.MergeRefused as e:  # an error gpumeter/__init__.py does not name
        record: Optional[int] = e.record
        code: int = e.exit_code
        print(record, code)


if __name__ == "__main__":
    main()
