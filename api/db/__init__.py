"""Storage of stored games: SQLAlchemy 2 models, the async engine, Alembic migrations."""
