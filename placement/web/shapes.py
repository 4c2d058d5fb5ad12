"""Shapes: named GET /allocation_candidates queries, as POST /capacity
takes them and as ``[metrics] capacity_shape`` names them, parsed and
counted the same way for both (``candidates/capacity.py`` counts)."""
import urllib.parse

import webob

from placement import errors
from placement import microversions
from placement.candidates import capacity
from placement.candidates import changes
from placement.candidates import stacks
from placement.candidates import query
from placement.schemas import capacity as schema
from placement.web import environ_keys
from placement.web import gc_pause
from placement.web import validation

# The keys of POST /capacity's body that change the cloud counted.
CHANGES = frozenset(['without', 'with', 'evacuate', 'survive', 'shapes_of'])


def parse(name, shape, version):
    """One shape (a query string, or an object of its parameters) as GET
    /allocation_candidates parses its query; its 400s name the shape."""
    if isinstance(shape, dict):
        shape = urllib.parse.urlencode(shape, doseq=True)
    # Shapes are this service's own (POST /capacity, the metrics), so
    # their schema errors are worded as its routes word them.
    as_query = webob.Request.blank('/', {environ_keys.OWN_ROUTE: True})
    # WSGI holds a query string as the latin-1 text of its bytes.
    as_query.query_string = shape.lstrip('?').encode().decode('latin-1')
    with capacity.named(name):
        try:
            as_query.GET
        except UnicodeDecodeError:
            # Percent-escapes of bytes that are not UTF-8, as in a URL.
            raise errors.BadRequest(
                'The query string is not valid UTF-8.') from None
        validation.validate_query(as_query, schema.QUERY.at(version))
        return query.parse_candidate_query(as_query.GET, version)


def parse_all(named, version):
    """{name: CandidateQuery} of POST /capacity's ``shapes`` object,
    already valid against ``schema.SHAPES``."""
    return {name: parse(name, shape, version)
            for name, shape in named.items()}


def parse_changes(data):
    """The changes.Asked of a POST /capacity body already valid against
    ``schema.SHAPES``, or None when it asks for none.  The shapes given
    for consumers are parsed at the latest microversion, as the
    evacuation reads them."""
    if not CHANGES.intersection(data):
        return None
    if data.get('evacuate') and 'without' not in data:
        raise errors.BadRequest(
            'evacuate needs without: the trees whose consumers move.')
    if 'shapes_of' in data and not (data.get('evacuate')
                                    or 'survive' in data):
        raise errors.BadRequest('shapes_of needs evacuate: true or '
                                'survive.')
    copies = tuple((entry['like'], entry['count'])
                   for entry in data.get('with', ()))
    if sum(count for _, count in copies) > schema.MOST_COPIES:
        raise errors.BadRequest('with: at most %d copies in all.'
                                % schema.MOST_COPIES)
    without = data.get('without', {})
    return changes.Asked(
        without_roots=tuple(without.get('roots', ())),
        without_aggregates=tuple(without.get('aggregates', ())),
        copies=copies, evacuate=bool(data.get('evacuate')),
        survive='survive' in data,
        survive_member_of=(data['survive'].get('member_of')
                           if isinstance(data.get('survive'), dict)
                           else None),
        shapes_of={consumer: parse('of ' + consumer, shape,
                                   microversions.MAX)
                   for consumer, shape in data.get('shapes_of', {}).items()})


def count(database, parsed, version, asked=None, snap=None):
    """The capacity count's answer for ``parsed`` shapes, in one read;
    as changed by ``asked`` (a changes.Asked), if given; from the
    worker's snapshot ``snap`` when there is one (see stacks.answer)."""
    # The engine runs once per shape, with as many small objects.
    with gc_pause.collection_paused():
        if asked is not None:
            return stacks.answer(
                database, snap,
                [*parsed.values(), *asked.shapes_of.values()],
                stacks.what_if, parsed, version, asked)
        return stacks.answer(database, snap, parsed.values(),
                             stacks.count_capacity, parsed, version)
