"""Prometheus metrics: the hooks that count (metrics.py, reading no
resource, as db.py imports it), the request counter and GET /metrics
(metrics_wsgi.py), and the capacity gauges summed at scrape time
(capacity_gauges.py)."""
