"""One router per resource, all mounted under /api."""
