"""The Server tab."""
