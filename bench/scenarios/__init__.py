"""Benchmark scenarios: each module has TITLE, DEFAULT_SIZES, DEFAULT_REPEAT and run(sizes, repeat, args)."""
