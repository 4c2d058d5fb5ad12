"""The benchmarks of this service, as one tool: ``bench/run COMMAND``.

``commands/`` holds one module (or package, for a command with modes)
per command; ``common/`` what they share: the server starter
(``serving``), the clouds written straight into a database (``cloud``),
the data sets loaded over the API (``datasets``), the HTTP clients
(``web``), the report tables (``report``) and scratch directories
(``scratch``).  Nothing here is installed with the service.
"""
