"""Capacity and usage gauges of ``GET /metrics``, computed by SQL.

They are not counted but read at scrape time (``objects/capacity.py``,
and for ``[metrics] capacity_shape`` the count of POST /capacity) and
reused for ``[metrics] cache_seconds``, so a scrape every few seconds
costs the database little.
"""
import logging
import threading
import time

from prometheus_client import core

from placement import errors
from placement import microversions
from placement.config import conf as placement_conf
from placement.objects import capacity
from placement.schemas import capacity as capacity_schema
from placement.web import shapes
from placement.web import validation

LOG = logging.getLogger(__name__)


class _Cached:
    """A prometheus_client collector whose families (``_families()``, of
    the subclass) are computed at most once per ``cache_seconds``, by the
    worker process answering.

    Only the first scrape of a worker waits for them.  Once they are
    older than ``cache_seconds``, a scrape still answers with them and
    has them computed again in a thread: counting shapes takes seconds,
    and a sync worker would serve nothing else meanwhile.  With
    ``cache_seconds = 0`` every scrape computes them itself."""

    def __init__(self, cache_seconds):
        self.cache_seconds = cache_seconds
        self.lock = threading.Lock()
        self.cached = None
        self.expires = 0.0
        self.refreshing = False

    def collect(self):
        with self.lock:
            now = time.monotonic()
            if self.cached is None or not self.cache_seconds:
                self.cached = list(self._families())
                self.expires = now + self.cache_seconds
            elif now >= self.expires and not self.refreshing:
                self.refreshing = True
                threading.Thread(target=self._refresh, daemon=True,
                                 name='metrics-refresh').start()
            return self.cached

    def _refresh(self):
        try:
            families = list(self._families())
        except Exception:
            # The figures a scrape gets stay the last ones counted; the
            # next scrape after cache_seconds tries again.
            LOG.exception('GET /metrics: computing the cached figures '
                          'failed')
            families = None
        with self.lock:
            if families is not None:
                self.cached = families
            self.expires = time.monotonic() + self.cache_seconds
            self.refreshing = False


class CapacityGauges(_Cached):
    """The cloud-wide (and, with ``[metrics] per_provider``, per
    provider) capacity and usage."""

    def __init__(self, database, conf):
        super().__init__(conf.cache_seconds)
        self.database = database
        self.per_provider = conf.per_provider

    def _families(self):
        totals, providers = self.database.read(capacity.snapshot,
                                               self.per_provider)
        cap = core.GaugeMetricFamily(
            'placement_capacity',
            'Capacity of all inventories: (total - reserved) * '
            'allocation_ratio, summed per resource class.',
            labels=['resource_class'])
        usage = core.GaugeMetricFamily(
            'placement_usage', 'Allocated amounts per resource class.',
            labels=['resource_class'])
        for name, (class_capacity, used) in sorted(totals.classes.items()):
            cap.add_metric([name], class_capacity)
            usage.add_metric([name], used)
        yield cap
        yield usage
        yield core.GaugeMetricFamily(
            'placement_resource_providers', 'Resource providers.',
            value=totals.providers)
        yield core.GaugeMetricFamily(
            'placement_consumers', 'Consumers holding allocations.',
            value=totals.consumers)
        if providers is None:
            return
        cap = core.GaugeMetricFamily(
            'placement_provider_capacity',
            'Capacity of one provider per resource class.',
            labels=['provider', 'resource_class'])
        usage = core.GaugeMetricFamily(
            'placement_provider_usage',
            'Allocated amounts of one provider per resource class.',
            labels=['provider', 'resource_class'])
        for (uuid, name), (class_capacity, used) in providers:
            cap.add_metric([uuid, name], class_capacity)
            usage.add_metric([uuid, name], used)
        yield cap
        yield usage


class ShapeGauges(_Cached):
    """How many more instances of each ``[metrics] capacity_shape`` fit,
    counted together as one POST /capacity of them would count them."""

    # Every query parameter a shape may use is known at the newest.
    VERSION = microversions.MAX

    def __init__(self, database, conf):
        super().__init__(conf.cache_seconds)
        self.database = database
        self.per_aggregate = conf.capacity_per_aggregate
        self.shapes = configured_shapes(conf.capacity_shape, self.VERSION)

    def _families(self):
        try:
            answer = shapes.count(self.database, self.shapes, self.VERSION)
        except errors.BadRequest as error:
            # E.g. a custom class or trait not created yet: the other
            # gauges still answer.
            LOG.error('[metrics] capacity_shape: %s; no shape gauges',
                      error.detail)
            return
        fits = core.GaugeMetricFamily(
            'placement_shape_fits',
            'Instances of a [metrics] capacity_shape that fit now, '
            'placed one after another as POST /capacity counts them.',
            labels=['shape'])
        for name, counted in answer['shapes'].items():
            fits.add_metric([name], counted['fits'])
        yield fits
        if self.per_aggregate:
            by_aggregate = core.GaugeMetricFamily(
                'placement_shape_fits_by_aggregate',
                'placement_shape_fits of the shape pinned to one '
                'aggregate by member_of, as nova pins an availability '
                'zone (absent where none fits, pinned or not).',
                labels=['shape', 'aggregate'])
            for name, counted in answer['shapes'].items():
                for aggregate in counted['aggregates']:
                    by_aggregate.add_metric([name, aggregate['uuid']],
                                            aggregate['fits'])
            yield by_aggregate
        for metric, key, meaning in (
                ('placement_shapes_stranded', 'stranded',
                 'Free space per resource class within the filters of '
                 'some [metrics] capacity_shape that none of them can '
                 'use, whichever fills the cloud.'),
                ('placement_shapes_stranded_elsewhere', 'stranded_elsewhere',
                 'Free space per resource class outside the filters of '
                 'every [metrics] capacity_shape.')):
            stranded = core.GaugeMetricFamily(metric, meaning,
                                              labels=['resource_class'])
            for name, amount in sorted(answer[key].items()):
                stranded.add_metric([name], amount)
            yield stranded


def configured_shapes(lines, version):
    """{name: CandidateQuery} of ``[metrics] capacity_shape`` lines
    ("NAME QUERY"); a ConfigError for a line POST /capacity would
    refuse."""
    def invalid(reason):
        return placement_conf.ConfigError(
            'invalid configuration: [metrics] capacity_shape: ' + reason)

    named = {}
    for line in lines:
        parts = line.split(None, 1)
        if len(parts) != 2:
            raise invalid('%r is not a name, a space and a query string'
                          % line)
        if parts[0] in named:
            raise invalid('shape %s is named twice' % parts[0])
        named[parts[0]] = parts[1]
    try:
        validation.validate({'shapes': named}, capacity_schema.SHAPES)
        return shapes.parse_all(named, version)
    except errors.BadRequest as error:
        raise invalid(error.detail) from None
