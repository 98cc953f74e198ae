"""Pure review rules: no framework imports, nothing of the project outside domain/."""
