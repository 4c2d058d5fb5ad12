"""Assemble the WSGI application from configuration."""
import importlib
import logging
import os
import sys

from oslo_middleware import cors

from placement import console
from placement.config import conf as placement_conf
from placement.config import policy
from placement.data import db
from placement.memory import source
from placement.metrics import capacity_gauges
from placement.metrics import metrics
from placement.metrics import metrics_wsgi
from placement.objects import bootstrap
from placement.web import auth
from placement.web import middleware
from placement.web import openapi
from placement.web import router

# Test and conformance runs set this to 1: every answer is then checked
# against the OpenAPI document by a middleware loaded only then (it
# buffers every body, so production never imports it).  It lives in the
# checkout's testsupport/, which is never installed: tools/ensure-venv
# puts the checkout on the venv's path.
VALIDATE_RESPONSES = 'PLACEMENT_VALIDATE_RESPONSES'
RESPONSE_VALIDATOR = 'testsupport.openapi_check'


def setup_logging(conf):
    level = logging.DEBUG if conf.debug else logging.INFO
    if conf.log_file:
        handler = logging.FileHandler(conf.log_file)
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(
        '%(asctime)s %(process)d %(levelname)s %(name)s %(message)s'))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    # Library warnings (oslo.policy's deprecations) become log lines in the
    # same format and file instead of bare text on stderr.
    logging.captureWarnings(True)
    # SQLAlchemy's echo and the keystone client are noisy at DEBUG.
    logging.getLogger('sqlalchemy').setLevel(logging.WARNING)


def build_app(conf, database, enforcer=None):
    """The middleware pipeline around the router, outermost last.

    The console, the OpenAPI document and ``GET /metrics`` are found by
    one path look-up in front of the API's own layers; each has just the
    layers it needs in front of it, as the API has.  ``enforcer``: the
    policy enforcer to serve with, by default a new one reading the
    configured policy files.
    """
    if enforcer is None:
        enforcer = policy.make_enforcer(conf)
    memory = None
    if conf.placement.read_source == 'snapshot':
        memory = source.Source(database, conf.placement.change_feed_gap_seconds)

    def negotiated(app):
        app = middleware.BodySizeLimit(app, conf.api.max_request_body_size)
        return middleware.MicroversionMiddleware(app)

    def authenticated(app):
        app = middleware.ContextMiddleware(app, database, enforcer, conf,
                                           memory)
        if conf.api.auth_strategy == 'noauth2':
            return auth.NoAuthMiddleware(app)
        return auth.KeystoneMiddleware(app, conf)

    # The API's description is public, like GET /.
    endpoints = {openapi.PATH: negotiated(openapi.OpenAPIEndpoint())}
    enabled = conf.metrics.enabled
    if enabled:
        metrics.instrument(database.engine)
        gauges = [capacity_gauges.CapacityGauges(database, conf.metrics)]
        if conf.metrics.capacity_shape:
            gauges.append(capacity_gauges.ShapeGauges(database,
                                                      conf.metrics))
        scrape = metrics_wsgi.MetricsEndpoint(conf, gauges)
        if conf.metrics.require_auth:
            scrape = authenticated(scrape)
        # Else a scraper sends no token.
        endpoints[metrics_wsgi.PATH] = negotiated(scrape)
    prefixes = {}
    if conf.api.console:
        # Outside authentication and negotiation: the page loads before
        # it has a token.
        prefixes[console.PREFIX] = console.ConsoleApp(conf)
    app = middleware.PathDispatch(
        negotiated(authenticated(router.Router())), endpoints, prefixes)
    app = middleware.FaultWrapper(app)
    if conf.cors.allowed_origin:
        app = cors.CORS(app, conf)
    if enabled:
        app = metrics_wsgi.RequestMetrics(app, conf)
    if validating_responses():
        # A response that breaks the document becomes a 500 naming the
        # mismatch.
        validator = importlib.import_module(RESPONSE_VALIDATOR)
        app = validator.ResponseValidator(app)
    return middleware.RequestLog(app, conf.api.access_log)


def validating_responses(environ=os.environ):
    value = environ.get(VALIDATE_RESPONSES, '')
    return value.lower() in ('1', 'true', 'yes')


def loadapp(conf=None):
    """Read configuration, prepare the database and build the app."""
    if conf is None:
        conf = placement_conf.load()
    setup_logging(conf)
    database = db.Database(conf)
    app = build_app(conf, database)
    bootstrap.prepare_database(database,
                               migrate=conf.placement_database.sync_on_startup)
    return app
