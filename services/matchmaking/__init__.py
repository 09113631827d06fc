"""The matchmaking service: queues, parties, private tables, robots filling seats, and the shard directory.

One matchmaking replica owns the queues (they live in its memory, ``queues.py``); private lobbies,
parties, seatings and the shard directory are in its database and survive a restart.
"""
