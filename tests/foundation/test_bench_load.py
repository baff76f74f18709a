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


def _read(updates, measuring):
    """What a bench player counts from ``updates`` (versions) on one socket."""
    import asyncio
    import json

    class Socket:
        def __aiter__(self):
            return self._frames()

        async def _frames(self):
            for version in updates:
                yield json.dumps({"type": "update", "version": version, "room": {}, "game": None})

    stats = bench.Stats()
    stats.measuring = measuring
    table = bench.Table(0, 1)
    player = bench.Player(table, 0, Socket(), stats)
    asyncio.run(player.read(product=False))
    return stats.dropped


def test_a_version_gap_counts_while_the_run_measures():
    assert _read([4, 5, 7, 8], measuring=True) == 1


def test_a_version_gap_as_the_sockets_hang_up_does_not_count():
    """Each close is a presence update to the table's other seats, and two
    closes handled by two servers at once can reach them out of order: that is
    the hang-up, not the run (it was the "one version gap" of round 9)."""
    assert _read([4, 5, 7, 8], measuring=False) == 0
    assert _read([4, 6, 5], measuring=True) == 1  # out of order: the late one is ignored


def test_routing_by_seat_spreads_a_table_and_routing_by_room_keeps_it_together():
    try:
        bench.ROUTE = "seat"
        assert [bench.server_of(5, seat, 2) for seat in range(4)] == [1, 0, 1, 0]
        bench.ROUTE = "room"
        assert [bench.server_of(5, seat, 2) for seat in range(4)] == [1, 1, 1, 1]
        assert {bench.server_of(table, 0, 2) for table in range(4)} == {0, 1}
    finally:
        bench.ROUTE = "seat"


def test_the_generators_quiet_collections_nest_and_the_outermost_block_restores():
    """The product and the floor side by side (bench_mixed.py --together) each
    enter the block in one process: the first to leave must not switch the
    oldest generation back on under the other, nor the last leave it off."""
    import gc

    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        with bench.no_long_collections_here():
            with bench.no_long_collections_here():
                assert gc.get_threshold() == (700, 10, 10**9)
            assert gc.get_threshold() == (700, 10, 10**9)
            assert gc.get_freeze_count() > 0
        assert gc.get_threshold() == (700, 10, 10)
        assert gc.get_freeze_count() == 0
    finally:
        gc.set_threshold(*before)


def test_the_floor_is_read_per_update_beside_the_products_summary(capsys):
    mixed = load_bench("bench_mixed")  # after bench_load: it imports it by that name
    stats = bench.Stats()
    stats.latencies.extend([0.004] * 200)
    bare = {"stats": stats, "cpu": 0.4, "elapsed": 10.0, "duration": 10.0}
    product = {"cpu_ms": 3.0, "frame_size": 2240.0}
    assert mixed.print_floor("floor beside it", product, bare, 2240) == 3.0 / 2.0
    line = capsys.readouterr().out
    assert line.startswith("floor beside it at 20 broadcasts/s of 2240 bytes: 2.00 ms CPU each "
                           "(4% of one core), p99 4 ms, errors 0;")
    assert line.rstrip().endswith("1.50x (the product's frames 2240 bytes)")
