"""Route constants: pages and links refer to these, never to string literals."""

HOME = "/"
