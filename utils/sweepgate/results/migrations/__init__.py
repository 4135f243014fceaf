"""Alembic migrations of the results store, run programmatically by ``store.open_store``."""
