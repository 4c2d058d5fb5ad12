"""The engine of GET /allocation_candidates, its explanation and the
capacity count: small steps with plain inputs and outputs (read,
assemble, combine, weigh, limit, render, census, fill), and
``stacks.py``, which declares each use as the steps it runs.

    query      the query string -> query.CandidateQuery   query.py,
                                                           query_filters.py
    names      names resolved to ids once per request      names.py
    checks     every rule of the request, declared once    checks.py,
                                                           tree_rules.py
    read       one statement per group, as a Plan says     reader.py,
                                                           statements.py,
                                                           layouts.py
    assemble   rows -> one Tree per tree                   assemble.py
    combine    groups into candidates, tree by tree        candidate_search.py,
                                                           search_state.py
    weigh      spread and pack; band by band with a limit  weigh.py,
                                                           ranking.py
    limit      the first N, or a random sample             pipeline.py
    render     the response JSON, as candidates come       render.py,
                                                           summaries.py
    census     the check each provider fails; the words    explain.py,
                                                           nearest.py
    fill       instances placed one after another          filling.py,
                                                           capacity.py,
                                                           alike.py,
                                                           stranded.py
"""
