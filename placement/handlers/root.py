"""GET /: the version document clients negotiate with."""
from placement import microversion
from placement import util


@util.handler(negotiate=False)
def home(req):
    version = {
        'id': 'v1.0',
        'max_version': microversion.max_version_string(),
        'min_version': microversion.min_version_string(),
        'status': 'CURRENT',
        'links': [{'rel': 'self', 'href': ''}],
    }
    return util.json_response(req, {'versions': [version]})
