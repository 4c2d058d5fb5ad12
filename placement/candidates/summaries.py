"""The provider summaries of an answer: from the rows the group
statements already read where those hold all a summary lists; the
providers' places in their trees, their traits and any figures the rows
lack in a few bulk reads.
"""
from placement import microversions


def summaries(where, search, ids):
    """{rp: (uuid, parent uuid, root uuid, {rc name: {capacity, used}},
    [trait name, ...] or None)} of the providers ``ids`` of an answer,
    read from ``where`` (the read step's source); from 1.29 of every
    provider of their trees, before 1.27 with the requested classes only,
    traits from 1.17."""
    if not ids:
        return {}
    places = where.places(search.version, ids)
    resources = _resources(where, search, places)
    traits = None
    if search.version >= microversions.CANDIDATE_TRAITS:
        traits = where.trait_lists(places)
    return {rp: (*place, resources[rp],
                 None if traits is None else traits[rp])
            for rp, place in places.items()}


def _resources(where, search, providers):
    """{rp: {rc name: {capacity, used}}} of ``providers``: from the rows
    the group statements read where those hold all that the summary
    lists, else read here.  Inventories alike render alike, and the
    rendering is only serialized: such providers share one dict, and
    providers whose rows are alike share the whole summary."""
    names = search.names.rc_names
    rendered = {}

    def render(per_class):
        summary = {}
        for rc in sorted(per_class):
            found = per_class[rc]
            shown = rendered.get(found)
            if shown is None:
                capacity, used = found
                shown = rendered[found] = {'capacity': int(capacity),
                                           'used': int(used or 0)}
            summary[names[rc]] = shown
        return summary

    resources = {}
    unread = []
    by_rows = {}
    seen = list(enumerate(search.seen))
    parts_seen = [(number, parts) for number, (_, parts) in seen]
    for rp in providers:
        # What the rows say of a provider, without its id and tree.
        key = tuple([(number, part) for number, parts in parts_seen
                     if (part := parts.get(rp)) is not None])
        summary = by_rows.get(key, False)
        if summary is False:
            per_class = {}
            listed = None
            for number, (layout, parts) in seen:
                part = parts.get(rp)
                if part is not None:
                    listed = layout.listed_of(part)
                    layout.figures(part, per_class)
            summary = by_rows[key] = (
                render(per_class) if len(per_class) == listed else None)
        if summary is None:
            unread.append(rp)
        else:
            resources[rp] = summary
    if unread:
        for rp, per_class in where.figures(
                unread, search.summary_classes).items():
            resources[rp] = render(per_class)
    return resources
