"""Background work: the worker loop, deadlines and notices, the bots, mail and push."""
