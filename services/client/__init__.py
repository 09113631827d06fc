"""``cardroom``: a terminal client a person can play with, over the platform's gRPC APIs only.

It shows each table exactly as the seat knows it: its own Snapshot (``GetView``) and the events its
Watch stream delivered, and nothing else. A card the seat is shown (a first look, a power's look, a
wrong match) is on screen for ``reveal_seconds`` and then turned back; nothing keeps it on screen.
"""
