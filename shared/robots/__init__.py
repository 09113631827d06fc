"""Robots: seats played by the server, through the same filtered view a person gets."""
