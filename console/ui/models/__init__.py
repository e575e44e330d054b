"""The Models panel (the window's sidebar) and its boxes and dialogs."""
