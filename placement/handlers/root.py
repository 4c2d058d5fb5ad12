"""GET /: the version document clients negotiate with."""
from placement import negotiation
from placement import responses
from placement.handlers import base


@base.handler(negotiate=False)
def home(req):
    version = {
        'id': 'v1.0',
        'max_version': negotiation.max_version_string(),
        'min_version': negotiation.min_version_string(),
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}],
    }
    return responses.json_response(req, {'versions': [version]})
