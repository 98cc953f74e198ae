"""Reading and checking team definitions (issue 10): the CLI's and the API's use cases."""
