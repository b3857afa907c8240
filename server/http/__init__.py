"""The HTTP layer: the JSON error shape, request parsing, schemas, signed-request auth, rate
limits and idempotency."""
