"""Placeholder training script of the bad-input job files (never run: each job is refused)."""
print("not reached")
