"""The extensions that take the query language of GET
/allocation_candidates (its explanation and /capacity) reject a bad query
with the very answer the list gives: same status, same body but for the
request id.  Schema errors excepted: routes of ours word those in one
sentence (test_error_texts_own_routes.py)."""
import re

import pytest

from support import helpers

EXTENSIONS = ['/allocation_candidates/explain', '/capacity']

BAD_QUERIES = [
    ('1.39', {}),
    ('1.39', {'resources': 'VCPU:x'}),
    ('1.39', {'resources': 'VCPU:-1'}),
    ('1.39', {'resources': 'NOPE:1'}),
    ('1.39', {'resources': 'CUSTOM_NOPE:1'}),
    ('1.39', {'resources': 'VCPU:1', 'required': 'CUSTOM_NOPE'}),
    ('1.39', {'resources1': 'VCPU:1', 'resources2': 'VCPU:1'}),
    ('1.38', {'resources': 'VCPU:1', 'required': 'in:A,B'}),
]

REQUEST_ID = re.compile(r'req-[0-9a-f-]+')


@pytest.mark.parametrize('path', EXTENSIONS)
@pytest.mark.parametrize('version,params', BAD_QUERIES)
def test_bad_queries_answer_as_the_list_does(client, path, version, params):
    listed = client.get('/allocation_candidates', params=params,
                        headers=helpers.version(version))
    extended = client.get(path, params=params,
                          headers=helpers.version(version))
    assert listed.status_code == extended.status_code == 400
    assert (REQUEST_ID.sub('', extended.text)
            == REQUEST_ID.sub('', listed.text))
