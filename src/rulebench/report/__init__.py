"""Rendering: tables and plots of what the engine and the families compute; no scoring here."""
