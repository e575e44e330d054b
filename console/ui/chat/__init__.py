"""The Chat tab and its parts."""
