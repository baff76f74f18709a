"""bench/bench_load.py's summary of a level run several times (--repeat)."""

from tests.servers import load_bench

bench = load_bench("bench_load")


def test_the_median_of_an_odd_number_of_runs_is_the_middle_one():
    line = bench.repeated_ratio([1.47, 1.07, 1.31], 300)
    assert line == ("ratio khelaghor / floor over 3 runs at 300 tables: 1.47x, 1.07x, 1.31x; "
                    "median 1.31x, 3 of 3 <= 1.5x")


def test_the_median_of_an_even_number_of_runs_is_between_the_middle_two():
    line = bench.repeated_ratio([1.85, 1.40, 1.60, 1.20], 200)
    assert line.endswith("median 1.50x, 2 of 4 <= 1.5x")
