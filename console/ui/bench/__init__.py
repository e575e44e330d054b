"""The Bench tab: runs, plots and the Auto-tune page."""
