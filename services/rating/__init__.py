"""The rating service: the Glicko-2 ladder, level points, badges, per-game stats and leaderboards."""
