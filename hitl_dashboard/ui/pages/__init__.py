"""Pages: thin functions that compose components inside the page layout."""
