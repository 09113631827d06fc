"""Code used by several cardroom services: engines, robots, generated stubs, auth, config, db, metrics."""
