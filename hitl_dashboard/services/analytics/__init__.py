"""Review analytics for managers: how long reviews wait, who decides how much, what it costs."""
