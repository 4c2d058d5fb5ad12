"""WSGI entry point for gunicorn and mod_wsgi: ``placement.wsgi:application``.

Configuration comes from ``$OS_PLACEMENT_CONFIG_DIR/placement.conf`` or
``/etc/placement/placement.conf``.
"""
import sys

from placement.config import conf as placement_conf
from placement.web import deploy


def init_application():
    try:
        # Building the app checks what loading cannot (the shapes of
        # [metrics] capacity_shape).
        return deploy.loadapp(placement_conf.load())
    except placement_conf.ConfigError as exc:
        sys.stderr.write('placement: %s\n' % exc)
        raise SystemExit(1) from None


application = init_application()
