"""The table service: live games, their clocks and robots, and the event log they are rebuilt from."""
