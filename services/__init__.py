"""The four cardroom services, one package each: profile, matchmaking, table, rating."""
