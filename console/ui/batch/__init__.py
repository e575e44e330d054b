"""The Batch tab and its results table."""
