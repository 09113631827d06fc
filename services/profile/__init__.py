"""The profile service: accounts (guests and named), sign-in, refresh sessions, display names and preferences."""
