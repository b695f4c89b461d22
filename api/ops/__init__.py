"""Operations: settings, logs, metrics, the access line, rate limits, the server and its
graceful shutdown."""
