// A provider's whole tree, each provider with its usage bars, traits and
// aggregates; the sharing providers the tree can draw from; the consumers
// of the selected provider and, one click on, a consumer's allocations.
import * as api from './api.js';
import {h, clear, fmt, providerLink, consumerLink, section, usageTable} from './dom.js';

const IN_FLIGHT = 6;
const SHARING_TRAIT = 'MISC_SHARES_VIA_AGGREGATE';

async function details(uuid, signal) {
  const base = 'resource_providers/' + encodeURIComponent(uuid);
  const [usage, traits, aggs] = await Promise.all([
    api.providerUsage(uuid, signal),
    api.get(base + '/traits', null, signal),
    api.get(base + '/aggregates', null, signal),
  ]);
  return {usage, traits: traits.traits.sort(), aggregates: aggs.aggregates.sort()};
}

function node(rp, info, selected) {
  return h('div', {class: selected ? 'node selected' : 'node', 'data-uuid': rp.uuid,
                   'data-name': rp.name},
    h('div', {class: 'node-head'}, providerLink(rp.uuid, rp.name),
      h('span', {class: 'mono muted small'}, rp.uuid)),
    usageTable(info.usage),
    info.traits.length ? h('div', {class: 'tags', 'data-field': 'traits'},
      info.traits.map((t) => h('span', {class: 'tag'}, t))) : null,
    info.aggregates.length ? h('div', {class: 'tags', 'data-field': 'aggregates'},
      info.aggregates.map(aggregateChip)) : null);
}

// An aggregate is only a uuid: its first block names it well enough
// beside the others (the whole uuid in the tooltip), and it links to the
// providers list filtered to its members.
function aggregateChip(uuid) {
  return h('a', {class: 'tag agg', href: '#/providers?member_of=' + encodeURIComponent(uuid),
                 title: `Aggregate ${uuid}: list its members`, 'data-uuid': uuid},
    'aggregate ', h('span', {class: 'mono'}, uuid.slice(0, 8)));
}

export async function renderProvider(main, {arg: uuid, signal}) {
  const rp = await api.get('resource_providers/' + encodeURIComponent(uuid), null, signal);
  const {resource_providers: tree} = await api.get(
    'resource_providers', {in_tree: rp.root_provider_uuid}, signal);
  for (const p of tree) api.rememberName(p.uuid, p.name);
  const info = new Map();
  await api.pool(tree, IN_FLIGHT, async (p) => info.set(p.uuid, await details(p.uuid, signal)), signal);

  const children = new Map();
  for (const p of tree) {
    const list = children.get(p.parent_provider_uuid) || [];
    list.push(p);
    children.set(p.parent_provider_uuid, list);
  }
  const branch = (p) => {
    const kids = (children.get(p.uuid) || []).sort((a, b) => a.name.localeCompare(b.name));
    return h('li', null, node(p, info.get(p.uuid), p.uuid === uuid),
      kids.length ? h('ul', null, kids.map(branch)) : null);
  };
  const root = tree.find((p) => p.uuid === rp.root_provider_uuid);

  const consumers = h('div', {id: 'consumers'}, h('p', {class: 'muted'}, 'Loading…'));
  const sharing = h('div', {id: 'sharing'}, h('p', {class: 'muted'}, 'Loading…'));
  main.append(
    h('h1', null, rp.name),
    h('p', {class: 'muted'}, h('span', {class: 'mono'}, rp.uuid), ` · generation ${rp.generation}`,
      ` · ${tree.length} provider${tree.length === 1 ? '' : 's'} in this tree`),
    section('Tree', h('div', {class: 'scroll'}, h('ul', {class: 'tree', id: 'tree'}, branch(root)))),
    section('Sharing providers this tree can draw from', sharing),
    section(`Consumers of ${rp.name}`, consumers));

  await Promise.all([
    paintSharing(sharing, tree, info, signal),
    paintConsumers(consumers, uuid, signal),
  ]);
}

// Providers with MISC_SHARES_VIA_AGGREGATE in an aggregate of the tree.
async function paintSharing(el, tree, info, signal) {
  const aggregates = new Set();
  for (const p of tree) for (const a of info.get(p.uuid).aggregates) aggregates.add(a);
  const inTree = new Set(tree.map((p) => p.uuid));
  let shared = [];
  if (aggregates.size) {
    const body = await api.get('resource_providers', {
      member_of: 'in:' + [...aggregates].sort().join(','), required: SHARING_TRAIT}, signal);
    shared = body.resource_providers.filter((p) => !inTree.has(p.uuid));
  }
  if (!shared.length) {
    clear(el).append(h('p', {class: 'muted'}, 'None.'));
    return;
  }
  const shownInfo = new Map();
  await api.pool(shared, IN_FLIGHT, async (p) => shownInfo.set(p.uuid, await details(p.uuid, signal)), signal);
  clear(el).append(h('div', {class: 'sharing'},
    shared.map((p) => node(p, shownInfo.get(p.uuid), false))));
}

async function paintConsumers(el, uuid, signal) {
  const body = await api.get(
    'resource_providers/' + encodeURIComponent(uuid) + '/allocations', null, signal);
  const entries = Object.entries(body.allocations).sort(([a], [b]) => a.localeCompare(b));
  if (!entries.length) {
    clear(el).append(h('p', {class: 'muted'}, 'No consumer has allocations here.'));
    return;
  }
  clear(el).append(h('div', {class: 'scroll'}, h('table', {class: 'list'},
    h('thead', null, h('tr', null, h('th', null, 'Consumer'), h('th', null, 'Resources here'))),
    h('tbody', null, entries.map(([consumer, {resources}]) => h('tr', {'data-consumer': consumer},
      h('td', null, consumerLink(consumer)),
      h('td', {'data-field': 'resources'}, resourceText(resources))))))));
}

function resourceText(resources) {
  return Object.keys(resources).sort().map((rc) => `${rc} ${fmt(resources[rc])}`).join(', ');
}

export async function renderConsumer(main, {arg: uuid, signal}) {
  const doc = await api.get('allocations/' + encodeURIComponent(uuid), null, signal);
  const providers = Object.keys(doc.allocations).sort();
  const names = new Map();
  await api.pool(providers, IN_FLIGHT, async (p) => names.set(p, await api.providerName(p, signal)), signal);
  main.append(
    h('h1', null, 'Consumer'),
    h('dl', {class: 'facts'},
      h('dt', null, 'UUID'), h('dd', {class: 'mono'}, uuid),
      h('dt', null, 'Project'), h('dd', {class: 'mono', 'data-field': 'project'}, doc.project_id || '—'),
      h('dt', null, 'User'), h('dd', {class: 'mono', 'data-field': 'user'}, doc.user_id || '—'),
      h('dt', null, 'Type'), h('dd', {'data-field': 'type'}, doc.consumer_type || '—'),
      h('dt', null, 'Generation'), h('dd', null, doc.consumer_generation ?? '—')),
    section('Allocations', providers.length ? h('table', {class: 'list', id: 'allocations'},
      h('thead', null, h('tr', null, h('th', null, 'Provider'), h('th', null, 'Resources'))),
      h('tbody', null, providers.map((p) => h('tr', {'data-uuid': p},
        h('td', null, providerLink(p, names.get(p))),
        h('td', {'data-field': 'resources'}, resourceText(doc.allocations[p].resources))))))
      : h('p', {class: 'muted'}, 'This consumer has no allocations.')));
}
