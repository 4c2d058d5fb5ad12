"""All of GET /allocation_candidates' response JSON, in one place.

Each candidate is encoded into one buffer as it comes from the
combiner, so a worker holds the answer as bytes, not as Python objects;
the provider summaries follow once the candidates are known.  The bytes
are those of encoding the whole answer at once (compact JSON, keys in
insertion order).
"""
import io

import orjson

from placement import microversions


class Rendering:
    """The answer being written: ``add`` each candidate, then ``finish``
    with the summaries of ``providers``."""

    def __init__(self, version, rc_names, uuids):
        self.dict_allocations = version >= microversions.DICT_ALLOCATIONS
        self.with_mappings = version >= microversions.MAPPINGS
        self.with_traits = version >= microversions.CANDIDATE_TRAITS
        self.with_tree = version >= microversions.NESTED_CANDIDATES
        self.rc_names = rc_names
        self.uuids = uuids
        # One buffer: each encoded piece is copied in and freed at once
        # (orjson's own buffers are several times the size of a candidate).
        self.out = io.BytesIO()
        self.out.write(b'{"allocation_requests":[')
        self.count = 0
        self.providers = set()
        # Candidates often share their amounts dicts (never changed while
        # the answer is written): each is rendered once.
        self._resources = {}

    def _amounts(self, amounts):
        found = self._resources.get(id(amounts))
        if found is None:
            names = self.rc_names
            found = self._resources[id(amounts)] = (amounts, {
                names[rc]: amount for rc, amount in amounts.items()})
        return found[1]

    def add(self, candidate):
        """Write one candidate: (allocations {rp: {rc: amount}}, mappings
        {suffix: (rp, ...)})."""
        allocations, mappings = candidate
        uuids = self.uuids
        self.providers.update(allocations)
        if self.dict_allocations:
            shown = {}
            for rp, amounts in allocations.items():
                shown[uuids[rp]] = {'resources': self._amounts(amounts)}
            body = {'allocations': shown}
        else:
            body = {'allocations': [
                {'resource_provider': {'uuid': uuids[rp]},
                 'resources': self._amounts(amounts)}
                for rp, amounts in allocations.items()]}
        if self.with_mappings:
            uuid_of = uuids.__getitem__
            body['mappings'] = {suffix: list(map(uuid_of, providers))
                                for suffix, providers in mappings.items()}
        out = self.out
        if self.count:
            out.write(b',')
        out.write(orjson.dumps(body))
        self.count += 1

    def map_only(self, candidate):
        """Note the providers a candidate maps without allocating from
        them (groups of traits or aggregates only): they are summarized
        too."""
        for providers in candidate[1].values():
            self.providers.update(providers)

    def finish(self, summaries):
        """The whole body (bytes), given ``summaries`` {rp: (uuid, parent
        uuid, root uuid, resources, traits)}."""
        out = self.out
        out.write(b'],"provider_summaries":{')
        first = True
        for uuid, parent, root, resources, traits in summaries.values():
            summary = {'resources': resources}
            if self.with_traits:
                summary['traits'] = traits
            if self.with_tree:
                summary['parent_provider_uuid'] = parent
                summary['root_provider_uuid'] = root
            if not first:
                out.write(b',')
            first = False
            out.write(orjson.dumps(uuid))
            out.write(b':')
            out.write(orjson.dumps(summary))
        out.write(b'}}')
        self.out = None
        # getvalue() hands over the buffer itself, without a copy.
        return out.getvalue()
