"""numrules HTTP layer: Litestar + msgspec over the pure `engine` package."""
