"""Results: normalize a job's raw output, store it, compare it with main, and show it."""
