"""Pure rules engines, one module (or package) per game. No grpc, no database, no clock."""
