"""Code the tests, bench/ and api-ref/ share, never installed and never
on the production request path: ``deploy.build_app`` loads
``openapi_check`` by name only when switched on."""
