"""Plain typed data and pure statistics shared by every benchmark; no I/O here."""
