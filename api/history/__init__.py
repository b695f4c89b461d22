"""An account's history and stats: its score sheets and stored games, read together."""
