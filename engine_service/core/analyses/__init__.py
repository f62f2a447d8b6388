"""Analysis of finished matches on request: jobs, their queue, their kept results."""
