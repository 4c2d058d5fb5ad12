"""GET /: the version document clients negotiate with."""
from placement.handlers import base
from placement.web import negotiation
from placement.web import responses


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
