"""Score sheets (matches played with physical cards), an account's history and its stats
(api-contract.md, "Accounts, score sheets, history"; rules/app.md)."""
