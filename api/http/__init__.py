"""Request and response helpers every area shares: problems, body decoding, hygiene, tokens
and the credentials a request carries."""
