"""GET /allocation_candidates and its explanation, as one pipeline.

The data runs one way (``pipeline.py`` holds the steps in order):

    request    query.CandidateQuery, plain values          query.py,
                                                           query_filters.py
    names      names resolved to ids once per request      names.py
    checks     every rule of the request, declared once    checks.py
    read       one statement per group, built from the     reader.py,
               checks; sharing providers; paging           statements.py
    combine    groups into candidates, tree by tree        candidate_search.py,
                                                           search_state.py
    rank       the answer's order (limit, random sample,   pipeline.py,
               or weighed: spread, pack; with a limit the  weigh.py,
               trees ranked first, read band by band)      ranking.py
    render     the response JSON, written as candidates    render.py,
               come                                        summaries.py

``explain.py`` counts with the same checks and the same combiner, so an
explanation cannot disagree with the list; ``nearest.py`` names the
providers and trees one check alone keeps out.  GET and POST /capacity
(``capacity.py``) read through the same steps and place instances one
after another on the rows read (``filling.py``; shapes alike but for
their amounts read at once, ``alike.py``); ``stranded.py`` sums the free
space they leave.
"""
