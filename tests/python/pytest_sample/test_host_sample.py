"""Host work, timed on the host clock (timing="host"): deterministic interpreter loops, a fixed
number of iterations each, short enough (tens of microseconds) that a scheduler's time slice
seldom lands inside one call, so a row's median holds on a loaded machine."""

BUDGET = (5, 40)  # warm-up and measured ms per pass: the host clock's rule needs few samples
N = 2000


def spin(n):
    x = 0
    for i in range(n):
        x += i
    return x


EXPECTED = spin(N)


def test_spin(gpumeter, work_factor):
    r = gpumeter(lambda: spin(int(N * work_factor("spin"))), timing="host", budget=BUDGET)
    assert r.method == "host-clock" and r.n_samples >= 10


def test_sum(gpumeter, work_factor):
    def loop():
        spin(int(N * work_factor("loop")))
        return EXPECTED

    c = gpumeter.compare({"builtin": lambda: sum(range(N)), "loop": loop}, timing="host",
                         budget=BUDGET)
    assert set(c.results) == {"builtin", "loop"}


def test_squares(gpumeter, work_factor):
    n = int(N * work_factor("squares"))
    gpumeter.measure(lambda: [i * i for i in range(n)], timing="host", budget=BUDGET,
                     name="squares")
