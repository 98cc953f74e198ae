"""Use cases. Each takes a unit of work and an actor; authorization is enforced here."""
