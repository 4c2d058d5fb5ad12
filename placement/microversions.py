"""Every microversion of the API, by name, and schemas chosen by version.

Code never spells a version as ``(1, N)``: it names the version that
introduced the behaviour it gates (``microversions.NESTED_PROVIDERS``).
``ALL`` lists every version in order with a one-line summary; the maximum
version, the version table of ``api-ref/README.md`` (checked by
``tests/api/test_microversions.py``) and the OpenAPI document come from it.

This module imports nothing from the service, so documentation tools can
read it without the web stack.  Negotiation lives in ``negotiation.py``.
"""


class Version(tuple):
    """A (major, minor) pair that compares like a tuple, prints as X.Y."""

    def __new__(cls, major, minor):
        return super().__new__(cls, (major, minor))

    def __str__(self):
        return '%d.%d' % self


class Microversion(Version):
    """A version of the registry: its number, constant name and summary."""

    def __new__(cls, minor, name, description):
        self = super().__new__(cls, 1, minor)
        self.name = name
        self.description = description
        return self

    def __repr__(self):
        return 'microversions.%s' % self.name


ALL = []


def _add(name, description):
    version = Microversion(len(ALL), name, description)
    ALL.append(version)
    return version


# Markdown is allowed in descriptions (they end up in api-ref tables and
# the OpenAPI document).
BASE = _add('BASE', 'providers, inventories, usages, allocations')
AGGREGATES = _add('AGGREGATES', 'provider aggregates')
RESOURCE_CLASSES = _add('RESOURCE_CLASSES', 'custom resource classes')
PROVIDER_MEMBER_OF = _add(
    'PROVIDER_MEMBER_OF', '`member_of` filter on the provider list')
PROVIDER_RESOURCES = _add(
    'PROVIDER_RESOURCES', '`resources` filter on the provider list')
DELETE_INVENTORIES = _add(
    'DELETE_INVENTORIES', '`DELETE` all inventories of a provider')
TRAITS = _add('TRAITS', 'traits')
PUT_CREATES_CLASS = _add(
    'PUT_CREATES_CLASS',
    '`PUT /resource_classes/{name}` creates instead of renaming')
CONSUMER_OWNER = _add(
    'CONSUMER_OWNER',
    '`project_id`, `user_id` required in `PUT /allocations/{uuid}`')
USAGES = _add('USAGES', '`GET /usages`')
ALLOCATION_CANDIDATES = _add(
    'ALLOCATION_CANDIDATES', '`GET /allocation_candidates`')
ALLOCATIONS_LINK = _add('ALLOCATIONS_LINK', '`allocations` link of providers')
DICT_ALLOCATIONS = _add(
    'DICT_ALLOCATIONS',
    'allocations keyed by provider (dict format) in '
    '`PUT /allocations/{uuid}` and candidates')
POST_ALLOCATIONS = _add(
    'POST_ALLOCATIONS', '`POST /allocations` (several consumers at once)')
NESTED_PROVIDERS = _add(
    'NESTED_PROVIDERS',
    'nested providers (`parent_provider_uuid`, `root_provider_uuid`, '
    '`in_tree`)')
CACHE_HEADERS = _add(
    'CACHE_HEADERS', '`Last-Modified` / `Cache-Control` headers')
CANDIDATE_LIMIT = _add('CANDIDATE_LIMIT', '`limit` on candidates')
CANDIDATE_TRAITS = _add(
    'CANDIDATE_TRAITS',
    '`required` traits on candidates; traits in provider summaries')
PROVIDER_TRAITS_FILTER = _add(
    'PROVIDER_TRAITS_FILTER', '`required` traits on the provider list')
AGGREGATES_GENERATION = _add(
    'AGGREGATES_GENERATION', 'provider generation in the aggregates API')
CREATE_RETURNS_PROVIDER = _add(
    'CREATE_RETURNS_PROVIDER',
    '`POST /resource_providers` answers 200 with the provider')
CANDIDATE_MEMBER_OF = _add(
    'CANDIDATE_MEMBER_OF', '`member_of` on candidates')
FORBIDDEN_TRAITS = _add('FORBIDDEN_TRAITS', 'forbidden traits (`!TRAIT`)')
ERROR_CODES = _add('ERROR_CODES', '`code` in error objects')
MULTI_MEMBER_OF = _add(
    'MULTI_MEMBER_OF', 'repeated `member_of` parameters')
GRANULAR_GROUPS = _add(
    'GRANULAR_GROUPS',
    'granular request groups on candidates (`resourcesN`, `group_policy`)')
RESERVED_EQUALS_TOTAL = _add(
    'RESERVED_EQUALS_TOTAL', 'inventory `reserved` may equal `total`')
ALL_CLASSES_IN_SUMMARY = _add(
    'ALL_CLASSES_IN_SUMMARY', 'provider summaries list all inventories')
CONSUMER_GENERATIONS = _add('CONSUMER_GENERATIONS', 'consumer generations')
NESTED_CANDIDATES = _add(
    'NESTED_CANDIDATES',
    'nested providers in candidates; parent/root in summaries')
RESHAPER = _add('RESHAPER', '`POST /reshaper`')
CANDIDATE_IN_TREE = _add('CANDIDATE_IN_TREE', '`in_tree` on candidates')
FORBIDDEN_AGGREGATES = _add(
    'FORBIDDEN_AGGREGATES', 'forbidden aggregates (`member_of=!...`)')
STRING_SUFFIXES = _add(
    'STRING_SUFFIXES', 'string group suffixes (`resources_NAME`)')
MAPPINGS = _add('MAPPINGS', '`mappings` in allocation requests')
ROOT_REQUIRED = _add('ROOT_REQUIRED', '`root_required` on candidates')
SAME_SUBTREE = _add(
    'SAME_SUBTREE', '`same_subtree` on candidates; resourceless groups')
REPARENTING = _add(
    'REPARENTING', 're-parenting and un-parenting providers')
CONSUMER_TYPES = _add('CONSUMER_TYPES', 'consumer types')
ANY_TRAITS = _add(
    'ANY_TRAITS',
    'any-of traits (`required=in:A,B`) and repeated `required`')

ALL = tuple(ALL)
MIN = ALL[0]
MAX = ALL[-1]


class ByVersion:
    """Values (schemas, mostly) that change at given microversions.

    ``ByVersion((BASE, a), (NESTED_PROVIDERS, b))``: ``a`` from 1.0 to
    1.13, ``b`` from 1.14 on.  ``at(version)`` picks the value in force;
    ``ranges()`` tells documentation which versions each value covers.
    """

    def __init__(self, *steps):
        versions = [version for version, _ in steps]
        if versions != sorted(set(versions)):
            raise ValueError('steps must be in increasing version order')
        self.steps = steps

    def at(self, version):
        """The value in force at ``version`` (a (major, minor) tuple)."""
        for first, value in reversed(self.steps):
            if version >= first:
                return value
        raise LookupError('nothing before %s' % (self.steps[0][0],))

    def ranges(self):
        """``(first, last, value)`` for each step, oldest first."""
        lasts = [ALL[ALL.index(first) - 1] for first, _ in self.steps[1:]]
        return [(first, last, value) for (first, value), last
                in zip(self.steps, lasts + [MAX])]
