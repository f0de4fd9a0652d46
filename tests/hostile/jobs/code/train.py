"""Placeholder training script of the hostile-input jobs (only rendered, never run)."""
print("not reached")
