"""Accounts (contract "Accounts, score sheets, history", rules/app.md "Accounts")."""
