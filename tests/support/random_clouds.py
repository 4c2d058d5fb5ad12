"""Random small clouds for the property tests over HTTP: hypothesis
strategies of providers (as ``worlds.World.add_random`` takes them) and
of request groups, and the settings those tests run under."""
import hypothesis
from hypothesis import strategies as st

RCS = ('VCPU', 'DISK_GB')
TRAITS = ('CUSTOM_A', 'CUSTOM_B')

inventory_st = st.fixed_dictionaries({
    'total': st.integers(1, 8), 'reserved': st.sampled_from([0, 0, 1]),
    'min_unit': st.sampled_from([1, 1, 1, 2]), 'max_unit': st.integers(2, 8),
    'step_size': st.sampled_from([1, 1, 1, 2]),
    'allocation_ratio': st.sampled_from([1.0, 1.0, 1.5])})
provider_st = st.fixed_dictionaries({
    'inventory': st.dictionaries(st.sampled_from(RCS), inventory_st,
                                 min_size=1, max_size=2),
    'used': st.dictionaries(st.sampled_from(RCS), st.integers(0, 2),
                            max_size=2),
    'traits': st.sets(st.sampled_from(TRAITS)),
    'aggs': st.sets(st.sampled_from(['A', 'B'])),
    'sharing': st.booleans(),
    # Index of the parent among the providers made before (None: a root).
    'parent': st.one_of(st.none(), st.integers(0, 5)),
})
# Ratios no binary float holds exactly, as MySQL and PostgreSQL keep them
# in single precision: the capacity compared must be the one SQL compares.
_awkward_st = st.tuples(provider_st,
                        st.sampled_from([0.7, 1.1, 1.3, 0.9, 16.0])).map(
    lambda drawn: {**drawn[0], 'inventory': {
        rc: {**inventory, 'allocation_ratio': drawn[1], 'total': 10,
             'max_unit': 16}
        for rc, inventory in drawn[0]['inventory'].items()}})
awkward_provider_st = st.one_of(provider_st, _awkward_st)
# Consumers (as ``worlds.World.add_random_consumers`` takes them): what
# each holds of one or two providers (by index), its type, and whether
# it has a consumer row at all.
consumer_st = st.fixed_dictionaries({
    'holds': st.dictionaries(
        st.integers(0, 6), st.dictionaries(st.sampled_from(RCS),
                                           st.integers(1, 3), min_size=1),
        min_size=1, max_size=2),
    'type': st.sampled_from([None, 'INSTANCE', 'INSTANCE', 'MIGRATION']),
    'recorded': st.sampled_from([True, True, True, False]),
})
group_st = st.fixed_dictionaries({
    'resources': st.dictionaries(st.sampled_from(RCS), st.integers(1, 2),
                                 min_size=1, max_size=2),
    'required': st.sets(st.sampled_from(TRAITS), max_size=1),
    'forbidden': st.sets(st.sampled_from(TRAITS), max_size=1),
})


def over_http(max_examples):
    """The settings of a property test over HTTP: the same examples on
    every run (CI stays deterministic), no deadline (each example starts
    requests and writes rows), and one ``world`` fixture, emptied by the
    test, for all examples."""
    return hypothesis.settings(
        max_examples=max_examples, deadline=None, derandomize=True,
        suppress_health_check=[
            hypothesis.HealthCheck.function_scoped_fixture])
