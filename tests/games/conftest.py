"""The stored-games suite runs on the run's PostgreSQL database, migrated with Alembic as in
production: the `games_app` and `games` (TestClient) fixtures are in tests/pg.py."""
