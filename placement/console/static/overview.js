// Overview: the whole cloud's capacity, used and reserved per resource
// class, the fullest providers, providers without inventory, consumers by
// type and project.  One provider list, then each provider's inventories
// and allocations (a bounded number in flight), then GET /usages per
// project; the page fills in as reads land.
import * as api from './api.js';
import {h, clear, fmt, plural, providerLink, section, usageBar} from './dom.js';

const IN_FLIGHT = 6;
const FULLEST = 10;

export async function renderOverview(main, {signal}) {
  const {resource_providers: providers} = await api.get('resource_providers', null, signal);
  for (const rp of providers) api.rememberName(rp.uuid, rp.name);
  const roots = providers.filter((rp) => rp.uuid === rp.root_provider_uuid).length;

  const progress = h('p', {class: 'muted', id: 'progress'});
  const classes = h('div', {id: 'classes'});
  const fullest = h('div', {id: 'fullest'});
  const empty = h('div', {id: 'no-inventory'});
  const consumers = h('div', {id: 'consumers'});
  main.append(
    h('h1', null, 'Overview'),
    h('div', {class: 'cards'},
      card('providers', providers.length, 'resource providers'),
      card('roots', roots, 'trees')),
    progress,
    section('Capacity by resource class', classes),
    h('div', {class: 'split'},
      section('Fullest providers', fullest),
      section('Providers without inventory', empty)),
    section('Consumers by type and project', consumers));

  const totals = new Map();      // rc -> {capacity, used, reserved, providers}
  const ratios = [];             // [fraction, rp, row] per provider
  const noInventory = [];
  const consumerSet = new Set();
  let done = 0;
  let lastPaint = 0;

  function paint(final) {
    const now = performance.now();
    if (!final && now - lastPaint < 250) return;
    lastPaint = now;
    progress.textContent = final
      ? `Read ${fmt(providers.length)} providers.`
      : `Reading providers: ${fmt(done)} of ${fmt(providers.length)}…`;
    paintClasses(classes, totals);
    paintFullest(fullest, ratios);
    paintEmpty(empty, noInventory, final);
  }

  await api.pool(providers, IN_FLIGHT, async (rp) => {
    const base = 'resource_providers/' + encodeURIComponent(rp.uuid);
    const inv = await api.get(base + '/inventories', null, signal);
    // Nothing can be allocated where there is no inventory.
    const alloc = Object.keys(inv.inventories).length
      ? await api.get(base + '/allocations', null, signal) : {allocations: {}};
    const usages = {};
    for (const [consumer, {resources}] of Object.entries(alloc.allocations)) {
      consumerSet.add(consumer);
      for (const [rc, amount] of Object.entries(resources)) {
        usages[rc] = (usages[rc] || 0) + amount;
      }
    }
    const rows = api.usageRows(inv.inventories, usages);
    if (!rows.length) noInventory.push(rp);
    let worst = null;
    for (const row of rows) {
      const t = totals.get(row.rc) || {capacity: 0, used: 0, reserved: 0, reservedUnits: 0, providers: 0};
      t.capacity += row.capacity;
      t.used += row.used;
      t.reserved += row.reserved;
      t.reservedUnits += Math.floor(row.reserved * row.ratio);
      t.providers += 1;
      totals.set(row.rc, t);
      const fraction = row.capacity > 0 ? row.used / row.capacity : (row.used > 0 ? Infinity : 0);
      if (!worst || fraction > worst[0]) worst = [fraction, rp, row];
    }
    if (worst) ratios.push(worst);
    done += 1;
    paint(false);
  }, signal);
  if (signal.aborted) return;
  paint(true);
  await paintConsumers(consumers, [...consumerSet], signal);
}

function card(id, value, label) {
  return h('div', {class: 'card', id: 'card-' + id},
    h('span', {class: 'big', 'data-field': 'value'}, fmt(value)), h('span', null, label));
}

function paintClasses(el, totals) {
  const names = [...totals.keys()].sort();
  if (!names.length) {
    clear(el).append(h('p', {class: 'muted'}, 'No inventory yet.'));
    return;
  }
  clear(el).append(h('div', {class: 'scroll'}, h('table', {class: 'usage stack'},
    h('thead', null, h('tr', null, h('th', null, 'Class'), h('th', null, h('span', {class: 'wide-only'}, 'Used / capacity')),
                       h('th', {class: 'num'}, 'Used'), h('th', {class: 'num'}, 'Capacity'),
                       h('th', {class: 'num'}, 'Reserved'),
                       h('th', {class: 'num wide-only'}, 'Providers'))),
    h('tbody', null, names.map((rc) => {
      const t = totals.get(rc);
      const label = `${rc}: used ${fmt(t.used)} of ${fmt(t.capacity)}, reserved ${fmt(t.reserved)}`;
      return h('tr', {'data-rc': rc},
        h('th', {scope: 'row'}, rc),
        h('td', {class: 'bar-cell'}, usageBar(t.used, t.capacity, t.reservedUnits, label)),
        h('td', {class: 'num', 'data-field': 'used', 'data-label': 'used'}, fmt(t.used)),
        h('td', {class: 'num', 'data-field': 'capacity', 'data-label': 'capacity'}, fmt(t.capacity)),
        h('td', {class: 'num', 'data-field': 'reserved', 'data-label': 'reserved'}, fmt(t.reserved)),
        h('td', {class: 'num wide-only', 'data-field': 'providers'}, fmt(t.providers)));
    })))));
}

function paintFullest(el, ratios) {
  ratios.sort((a, b) => b[0] - a[0]);
  const top = ratios.slice(0, FULLEST).filter(([fraction]) => fraction > 0);
  if (!top.length) {
    clear(el).append(h('p', {class: 'muted'}, 'Nothing is allocated.'));
    return;
  }
  clear(el).append(h('ol', {class: 'fullest'}, top.map(([fraction, rp, row]) =>
    h('li', {'data-uuid': rp.uuid},
      providerLink(rp.uuid, rp.name), ' ',
      h('span', {class: 'muted'}, `${row.rc} ${fmt(row.used)} / ${fmt(row.capacity)}`), ' ',
      h('strong', {'data-field': 'percent'},
        Number.isFinite(fraction) ? `${Math.round(fraction * 100)}%` : 'over')))));
}

function paintEmpty(el, rps, final) {
  clear(el);
  if (!rps.length) {
    el.append(h('p', {class: 'muted'}, final ? 'Every provider has inventory.' : '…'));
    return;
  }
  const shown = [...rps].sort((a, b) => a.name.localeCompare(b.name)).slice(0, 50);
  el.append(h('p', {'data-field': 'count'}, plural(rps.length, 'provider')),
    h('ul', {class: 'plain'}, shown.map((rp) => h('li', {'data-uuid': rp.uuid},
      providerLink(rp.uuid, rp.name)))));
  if (rps.length > shown.length) {
    el.append(h('p', {class: 'muted'}, `and ${fmt(rps.length - shown.length)} more`));
  }
}

// A consumer's project is only in GET /allocations/{consumer}; GET /usages
// then counts all of that project's consumers by type.  So read consumers,
// in random order, only until the projects found account for every
// consumer seen on the providers.
async function paintConsumers(el, consumers, signal) {
  if (!consumers.length) {
    el.append(h('p', {class: 'muted'}, 'No consumers.'));
    return;
  }
  const progress = h('p', {class: 'muted'}, `Finding the projects of ${plural(consumers.length, 'consumer')}…`);
  el.append(progress);
  shuffle(consumers);
  const projects = new Map();
  let covered = 0;
  let read = 0;
  await api.pool(consumers, IN_FLIGHT, async (uuid) => {
    if (covered >= consumers.length) return;
    const doc = await api.get('allocations/' + encodeURIComponent(uuid), null, signal);
    read += 1;
    const project = doc.project_id;
    if (!project || projects.has(project)) return;
    projects.set(project, {});
    const body = await api.get('usages', {project_id: project}, signal);
    projects.set(project, body.usages);
    for (const group of Object.values(body.usages)) covered += group.consumer_count;
  }, signal);
  if (signal.aborted) return;
  const rows = [];
  for (const [project, usages] of projects) {
    for (const [type, group] of Object.entries(usages)) {
      const {consumer_count: count, ...resources} = group;
      rows.push({project, type, count, resources});
    }
  }
  rows.sort((a, b) => a.type.localeCompare(b.type) || a.project.localeCompare(b.project));
  clear(el).append(h('div', {class: 'scroll'}, h('table', {class: 'list'},
    h('thead', null, h('tr', null, h('th', null, 'Type'), h('th', null, 'Project'),
                       h('th', {class: 'num'}, 'Consumers'), h('th', null, 'Resources'))),
    h('tbody', null, rows.map((g) => h('tr', {'data-project': g.project, 'data-type': g.type},
      h('td', {'data-field': 'type'}, g.type),
      h('td', {class: 'mono', 'data-field': 'project'}, g.project),
      h('td', {class: 'num', 'data-field': 'count'}, fmt(g.count)),
      h('td', {'data-field': 'resources'}, Object.keys(g.resources).sort()
        .map((rc) => `${rc} ${fmt(g.resources[rc])}`).join(', '))))))),
    h('p', {class: 'muted small'}, `${plural(projects.size, 'project')}, found by reading ` +
      `${fmt(read)} of ${plural(consumers.length, 'consumer')}.`));
}

function shuffle(items) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
}
