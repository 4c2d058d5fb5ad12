"""Code for test and conformance runs, never on the production request
path: ``deploy.build_app`` loads it by name only when switched on."""
