"""What the metrics read from the database: committed audit events, and the queues at scrape time."""
