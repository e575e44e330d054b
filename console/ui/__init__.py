"""The desktop console (PySide6). The only package of ``console`` that imports Qt: it renders the
core's state and forwards the user's intents to it."""
