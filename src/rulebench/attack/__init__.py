"""GCG: gradient search over adversarial suffixes on hf models (no CLI here)."""
