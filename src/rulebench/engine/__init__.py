"""The shared machinery: runner (scheduling, concurrency, progress), store (SQLite), cache."""
