"""The Export tab."""
