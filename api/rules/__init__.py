"""The catalogue and the stateless rules endpoints (api-contract.md, "Catalogue",
"Stateless rules endpoints")."""
