"""How tools/differential.py compares two answers, and which of their
differences it accepts."""
import json
import re
import urllib.parse

from differential_common import KNOWN_UUIDS


# Differences kept on purpose: (regex on "METHOD path", regex on the
# difference line, why).  A step is accepted when each of its difference
# lines matches an entry.
ACCEPTED = [
    ('', r'^/headers/vary: "openstack-api-version" here, upstream has none',
     "upstream drops Vary from errors that escape its handlers (router "
     "404/405, lookups' 404, policy 403); sending it is harmless"),
    (r'resources=VCPU:99999999999999999999', '',
     'upstream answers 500 (an integer beyond SQLite INTEGER); ours 200'),
    (r'^GET /allocation_candidates\?.*&limit=1(&|$)',
     r'^/body/(allocation_requests|provider_summaries)',
     'which candidate comes first is not part of the contract: upstream '
     'picks among the fitting trees by set order, which changes from one '
     'process to the next (the unlimited query is compared in full)'),
    (r'same_subtree=_A,_B,_C,_D|required_B=CUSTOM_T&required_C',
     r"\['_", 'lists of suffixes: upstream prints a set (random order), '
     'ours sorted'),
    (r'^GET /allocation_candidates\?resources_A=VCPU:2&in_tree_B=', '',
     'a resourceless group with only in_tree: candidate engine semantics, '
     'out of scope here'),
    (r'^DELETE /resource_providers/[^/]+/inventories$',
     r'^/headers/allow: "GET, POST, PUT" here',
     'a 405 names the methods it allows (RFC 9110); upstream sends none'),
    (r'^GET /resource_providers\?uuid=D1FF', '',
     "upper-case UUID filter: upstream's SQLite comparison is case-"
     "sensitive (MariaDB's is not); ours matches the provider"),
    (r'^POST /resource_providers/[^/]+/inventories$',
     r'^/body/(allocation_ratio|resource_provider_generation)',
     'allocation_ratio 1e30 echoed as a float; generations follow'),
    (r'^POST /resource_providers/[^/]+/inventories$',
     r'IntegrityError|already exists',
     "duplicate inventory: upstream shows the driver's IntegrityError "
     '(SQL and parameters); ours names the class'),
    (r'^PUT /allocations/', r"2\.0|/status: 400 here, upstream 409",
     'an amount of 2.0: upstream reads it as an integer then refuses it '
     'with a 409 "violate inventory constraints"; ours is a 400 (not '
     'an integer)'),
    (r'^PUT /allocations/', r'1000000000000000000000000000000 is greater'
     r'|/status: 400 here, upstream 409',
     'an amount beyond 2**31: upstream has no bound in its schema and '
     'answers 409 "violate inventory constraints"; ours 400 at the schema'),
]


UUID_RE = re.compile(r'[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?'
                     r'[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}')
COMPARED_HEADERS = ('content-type', 'location', 'openstack-api-version',
                    'vary', 'cache-control', 'allow')


def _uuid(match):
    value = match.group(0)
    return value if value.lower() in KNOWN_UUIDS else '<uuid>'


def _normal(value):
    """The JSON value with server-chosen details made comparable."""
    if isinstance(value, dict):
        return {key: _normal(item) for key, item in value.items()
                if key not in ('request_id', 'created_at', 'updated_at')}
    if isinstance(value, list):
        items = [_normal(item) for item in value]
        return sorted(items, key=lambda item: json.dumps(item,
                                                         sort_keys=True))
    if isinstance(value, str):
        text = UUID_RE.sub(_uuid, value)
        # The dump of the schema after this is jsonschema's, not ours.
        if 'Failed validating' in text:
            text = text.split('Failed validating', 1)[0].rstrip()
        return text
    return value


def answer(response):
    """The comparable part of a response."""
    headers = {}
    for name in COMPARED_HEADERS:
        value = response.headers.get(name)
        if value is None:
            continue
        if name == 'allow':
            value = ', '.join(sorted(v.strip() for v in value.split(',')))
        elif name == 'vary':
            value = ', '.join(sorted(v.strip().lower()
                                     for v in value.split(',')))
        elif name == 'content-type':
            value = value.replace(' ', '').lower()
        elif name == 'location':
            value = urllib.parse.urlsplit(value).path
        headers[name] = UUID_RE.sub(_uuid, value)
    # Present or not; a stamp of null_timestamps() as it is.
    modified = response.headers.get('last-modified')
    headers['last-modified'] = (modified if modified and ' 2020 ' in modified
                                else modified is not None)
    try:
        body = _normal(response.json())
    except ValueError:
        body = _normal(response.text)
    if response.request.method == 'HEAD':
        body = None
    return {'status': response.status_code, 'headers': headers,
            'body': body}


def differences(ours, theirs, path=''):
    """Where two answers differ, one line each."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        lines = []
        for key in sorted(set(ours) | set(theirs), key=str):
            if key not in ours:
                lines.append('%s/%s: missing here, upstream %s'
                             % (path, key, short(theirs[key])))
            elif key not in theirs:
                lines.append('%s/%s: %s here, upstream has none'
                             % (path, key, short(ours[key])))
            else:
                lines += differences(ours[key], theirs[key],
                                     '%s/%s' % (path, key))
        return lines
    if ours != theirs:
        return ['%s: %s here, upstream %s' % (path, short(ours),
                                             short(theirs))]
    return []


def short(value, width=600):
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= width else text[:width] + '...'


# Requests upstream fails on one database with a 500 of its own making
# (found by the marker in its error body): the whole answer differs.
UPSTREAM_FAILURES = [
    (r'^GET /usages\?', r'GroupingError',
     "upstream's usages by consumer type (1.38) is a 500 on PostgreSQL: "
     'its statement groups by consumer type but selects the resource '
     'class too; ours answers'),
]


def upstream_failure(where, lines):
    """The reason upstream's answer to ``where`` ("METHOD path") is a
    failure of its own (UPSTREAM_FAILURES), or None."""
    return next((why for where_re, marker_re, why in UPSTREAM_FAILURES
                 if re.search(where_re, where)
                 and any(re.search(marker_re, line) for line in lines)),
                None)


def accepted_reason(step, lines):
    """Why these differences of ``step`` are kept, or None."""
    where = '%s %s' % (step.method, step.path)
    failure = upstream_failure(where, lines)
    if failure:
        return failure
    reasons = []
    for line in lines:
        reason = next((why for step_re, line_re, why in ACCEPTED
                       if re.search(step_re, where)
                       and re.search(line_re, line)), None)
        if reason is None:
            return None
        reasons.append(reason)
    return '; '.join(dict.fromkeys(reasons))
