"""The web edge: the WSGI pipeline (deploy.py) and its middleware,
authentication, version negotiation, the route map, request validation,
responses and the OpenAPI document.  It calls the handlers and the
engine; nothing below it imports it (environ_keys.py, a list of names
that imports nothing, is shared with errors.py)."""
