"""What metrics and traces read from the database: committed audit events, the queues at scrape
time, the trace context stored with a conversation."""
