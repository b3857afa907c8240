"""The pbem command groups: one module per group, none imports another."""
