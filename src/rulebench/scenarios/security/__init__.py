"""The eight security scenarios (Encryption ... DiningCryptographers): secrets, keys, balances.

Each module holds one scenario class and exposes it as `SCENARIO` for the registry; the shared
machinery (walking a conversation, drawing secrets, rendering prompts) lives beside them.
"""
