"""The headless ``inference-console`` command: every GUI action, scriptable."""
