// Capacity: how many more instances of each shape (a flavor list) fit,
// per aggregate, which resource class ends each host's run, and the free
// space left that the shapes cannot use.  One request, POST /capacity,
// listing only the hosts shown; the shapes live in the location hash
// (#/capacity?NAME=QUERY&...), so a flavor list can be bookmarked, and so
// do the what-if changes (whatif.js).
import * as api from './api.js';
import {h, fmt, link, plural, section} from './dom.js';
import {MARK, changesBody, changesEntries, changesFields, changesSections, namedRoots,
        rootLink} from './whatif.js';

const SHOWN_HOSTS = 10;
// One host more than shown says whether there are more.
const ASKED_HOSTS = SHOWN_HOSTS + 1;
const EXAMPLE = 'e.g.\nm1.small resources=VCPU:1,MEMORY_MB:2048,DISK_GB:20\n' +
  'm1.large resources=VCPU:4,MEMORY_MB:8192,DISK_GB:80&member_of=<AZ aggregate uuid>';

// "NAME QUERY" lines, as [metrics] capacity_shape takes them, to
// [[name, query]]; throws on a line without both or a name given twice.
function parseLines(text) {
  const named = new Map();
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const match = /^(\S+)\s+(\S.*)$/.exec(line);
    if (!match) throw new Error(`"${line}" is not a name, a space and a query string.`);
    if (named.has(match[1])) throw new Error(`Shape ${match[1]} is named twice.`);
    if (match[1].startsWith(MARK)) throw new Error(`Shape ${match[1]}: a name may not start with ${MARK}.`);
    named.set(match[1], match[2].replace(/^\?/, ''));
  }
  return [...named];
}

// A shape's query with the hosts it lists cut to those the page shows
// (a limit never changes the count), whatever limit it named.
function listingShown(value) {
  const params = new URLSearchParams(value);
  params.set('limit', String(ASKED_HOSTS));
  return params.toString();
}

export async function renderCapacity(main, {query, rawQuery, signal}) {
  const shapes = [...query].filter(([name]) => !name.startsWith(MARK));
  const changes = new Map([...query].filter(([name]) => name.startsWith(MARK)));
  const lines = h('textarea', {id: 'shapes', rows: Math.max(3, shapes.length + 1),
                               placeholder: EXAMPLE},
                  shapes.map(([name, value]) => `${name} ${value}`).join('\n'));
  const problem = h('p', {class: 'error', id: 'form-error', hidden: true});
  const form = h('form', {id: 'capacity-form', class: 'explain-form'},
    h('label', {class: 'wide'}, h('span', null,
      'One shape a line: a name, a space and the query string of GET /allocation_candidates ' +
      '(as [metrics] capacity_shape)'), lines),
    changesFields(changes),
    problem,
    h('button', {type: 'submit'}, 'Count'));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    try {
      location.hash = '#/capacity?' + new URLSearchParams(
        [...parseLines(lines.value), ...changesEntries(form)]).toString();
    } catch (error) {
      problem.textContent = error.message;
      problem.hidden = false;
    }
  });
  const folded = h('details', {class: 'query', open: !rawQuery},
    h('summary', null, rawQuery ? h('span', null, plural(shapes.length, 'shape'), ': ',
      h('code', {class: 'mono'}, shapes.map(([name]) => name).join(', ')),
      changes.size ? ', what if' : null,
      h('span', {class: 'muted small'}, ' (edit)')) : 'Shapes'),
    form);
  main.append(h('h1', null, 'Capacity: how many more fit'), folded);
  if (!rawQuery) return;

  const answer = await api.post('capacity', {shapes: Object.fromEntries(
    shapes.map(([name, value]) => [name, listingShown(value)])), ...changesBody(changes)}, signal);
  const names = shapes.map(([name]) => name);
  for (const shape of Object.values(answer.shapes)) {
    for (const rp of shape.providers) api.rememberName(rp.uuid, rp.name);
  }
  const rootNames = new Map();
  await api.pool(namedRoots(answer), 4, async (uuid) =>
    rootNames.set(uuid, await api.providerName(uuid, signal)), signal);
  main.append(
    section('Fits per shape', fitsTable(shapes, answer.shapes)),
    ...changesSections(answer, rootNames),
    section('Per aggregate', aggregateTable(names, answer.shapes)),
    section('Stranded space', strandedTable(names, answer)),
    section('Where they fit', names.map((name, index) =>
      hostList(name, answer.shapes[name], index === 0))));
}

// How many of the hosts shown each resource class ends the run of.
function tally(providers) {
  const counts = new Map();
  for (const rp of providers) {
    for (const rc of rp.limited_by) counts.set(rc, (counts.get(rc) || 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([rc, n]) => `${rc} on ${plural(n, 'host')}`).join(', ');
}

function fitsTable(shapes, answers) {
  return h('div', {class: 'scroll'}, h('table', {class: 'list', id: 'fits'},
    h('thead', null, h('tr', null, h('th', null, 'Shape'), h('th', {class: 'num'}, 'Fits'),
      h('th', {class: 'num'}, 'Hosts'), h('th', null, 'Runs out first (largest hosts)'),
      h('th', null, 'Query'))),
    h('tbody', null, shapes.map(([name, value]) => {
      const shape = answers[name];
      return h('tr', {'data-shape': name},
        h('th', {scope: 'row'}, name),
        h('td', {class: 'num', 'data-field': 'fits'}, h('strong', null, fmt(shape.fits))),
        h('td', {class: 'num', 'data-field': 'hosts'}, hostCount(shape)),
        h('td', {'data-field': 'limits'}, tally(shown(shape))),
        h('td', {class: 'mono muted small'}, value));
    }))));
}

// The hosts a shape lists, as many as the page shows.
function shown(shape) {
  return shape.providers.slice(0, SHOWN_HOSTS);
}

// How many hosts take one: known up to the hosts asked for.
function hostCount(shape) {
  return shape.providers.length > SHOWN_HOSTS ? `more than ${SHOWN_HOSTS}`
    : fmt(shape.providers.length);
}

// Aggregates (an availability zone is one) by shape, each the shape
// pinned to it; none fits: 0.
function aggregateTable(names, answers) {
  const entries = new Map();
  for (const name of names) {
    for (const agg of answers[name].aggregates) {
      if (!entries.has(agg.uuid)) entries.set(agg.uuid, {});
      entries.get(agg.uuid)[name] = agg;
    }
  }
  if (!entries.size) return h('p', {class: 'muted', id: 'aggregates'}, 'No host that fits one is in an aggregate.');
  return h('div', null,
    h('p', {class: 'muted small'}, 'Each shape pinned to the aggregate with member_of, as nova ' +
      'places in an availability zone.  Where that differs, the figure of its hosts while the ' +
      'whole cloud fills follows in brackets: hosts drawing on a pool outside the aggregate.'),
    h('div', {class: 'scroll'}, h('table', {class: 'list', id: 'aggregates'},
      h('thead', null, h('tr', null, h('th', null, 'Aggregate'),
        names.map((name) => h('th', {class: 'num'}, name)))),
      h('tbody', null, [...entries].map(([uuid, byShape]) => h('tr', {'data-aggregate': uuid},
        h('th', {scope: 'row'}, link('providers?member_of=' + encodeURIComponent(uuid),
          uuid.slice(0, 8), {class: 'tag agg', title: `aggregate ${uuid}: its members`})),
        names.map((name) => aggregateCell(name, byShape[name]))))))));
}

function aggregateCell(name, agg) {
  const fits = agg ? agg.fits : 0;
  return h('td', {class: fits ? 'num' : 'num muted', 'data-shape': name},
    h('span', {'data-field': 'fits'}, fmt(fits)),
    agg && agg.roots_fits !== undefined
      ? h('span', {class: 'muted small', 'data-field': 'roots-fits',
                   title: 'its hosts while the whole cloud fills'}, ` (${fmt(agg.roots_fits)})`)
      : null);
}

function strandedTable(names, answer) {
  const classes = Object.keys(answer.stranded).sort();
  return h('div', null,
    h('p', {class: 'muted small'}, 'Free space per class within a shape\'s reach (the providers ' +
      'its aggregates, tree and traits allow) that no further instance can use once it fills ' +
      'what it can: with each shape alone, and what none of them can use whichever fills the ' +
      'cloud.  In brackets, free space outside the shape\'s reach, which it may not use at all.'),
    h('div', {class: 'scroll'}, h('table', {class: 'list', id: 'stranded'},
      h('thead', null, h('tr', null, h('th', null, 'Class'), h('th', {class: 'num'}, 'No shape can use'),
        h('th', {class: 'num'}, 'Out of every shape\'s reach'),
        names.map((name) => h('th', {class: 'num'}, `After ${name}`)))),
      h('tbody', null, classes.map((rc) => h('tr', {'data-rc': rc},
        h('th', {scope: 'row'}, rc),
        h('td', {class: 'num', 'data-field': 'all'}, fmt(answer.stranded[rc])),
        h('td', {class: 'num', 'data-field': 'all-elsewhere'}, fmt(answer.stranded_elsewhere[rc])),
        names.map((name) => strandedCell(name, answer.shapes[name], rc))))))));
}

// What one shape strands of a class it requests (blank for the others),
// and in brackets what lies outside its reach.
function strandedCell(name, shape, rc) {
  const left = shape.stranded[rc];
  const elsewhere = shape.stranded_elsewhere[rc];
  return h('td', {class: 'num', 'data-shape': name},
    left === undefined ? null : h('span', {'data-field': 'stranded'}, fmt(left)),
    elsewhere ? h('span', {class: 'muted small', 'data-field': 'elsewhere',
                           title: 'outside its reach'}, ` (${fmt(elsewhere)})`) : null);
}

// The hosts (root providers) of one shape, most first, with what ends
// each one's run.
function hostList(name, shape, open) {
  const listed = shown(shape);
  return h('details', {class: 'hosts', 'data-shape': name, open},
    h('summary', null, h('strong', null, name), ': ', plural(shape.fits, 'instance'), ' on ',
      hostCount(shape), shape.providers.length === 1 ? ' host' : ' hosts'),
    listed.length ? h('div', {class: 'scroll'}, h('table', {class: 'list'},
      h('thead', null, h('tr', null, h('th', null, 'Host'), h('th', {class: 'num'}, 'Fits'),
        h('th', null, 'Runs out of'))),
      h('tbody', null, listed.map((rp) => h('tr', {'data-uuid': rp.uuid},
        h('td', null, rootLink(rp.uuid, rp.name)),
        h('td', {class: 'num', 'data-field': 'fits'}, fmt(rp.fits)),
        h('td', {'data-field': 'limited-by'}, rp.limited_by.join(', '))))))) : null,
    shape.providers.length > listed.length
      ? h('p', {class: 'muted small'}, `The first ${listed.length}, most first.`) : null);
}
