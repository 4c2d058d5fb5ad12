"""Capacity and usage gauges of ``GET /metrics``, computed by SQL.

They are not counted but read at scrape time (``objects/capacity.py``)
and reused for ``[metrics] cache_seconds``, so a scrape every few seconds
costs the database little.
"""
import threading
import time

from prometheus_client import core

from placement.objects import capacity


class CapacityGauges:
    """A prometheus_client collector of the cloud-wide (and, with
    ``[metrics] per_provider``, per provider) capacity and usage."""

    def __init__(self, database, conf):
        self.database = database
        self.cache_seconds = conf.cache_seconds
        self.per_provider = conf.per_provider
        self.lock = threading.Lock()
        self.cached = None
        self.expires = 0.0

    def collect(self):
        with self.lock:
            now = time.monotonic()
            if self.cached is None or now >= self.expires:
                self.cached = list(self._families())
                self.expires = now + self.cache_seconds
            return self.cached

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
