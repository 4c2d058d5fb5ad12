"""Requests and readings shared by the test_explain_*.py modules."""
from support import helpers

PATH = '/allocation_candidates/explain'


def explain(client, version='1.39', **params):
    response = client.get(PATH, params=params, headers=helpers.version(
        version))
    assert response.status_code == 200, response.text
    return response.json()


def steps(body, suffix=''):
    """{check: (removed, remaining)} of one group."""
    group, = [g for g in body['groups'] if g['suffix'] == suffix]
    return {step['check']: (step['removed'], step['remaining'])
            for step in group['steps']}


def combined(body):
    return {step['check']: (step['removed'], step['remaining'])
            for step in body['combination']['steps']}
