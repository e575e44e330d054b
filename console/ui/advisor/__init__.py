"""The Advisor dock."""
