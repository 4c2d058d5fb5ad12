"""Configuration and policy: the options (conf.py), the policy rules and
their enforcer (policy.py), and the per-request context that carries
them with the database (context.py)."""
