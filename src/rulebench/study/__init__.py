"""Studies: several ordinary runs read together (the IRFT before/after comparison)."""
