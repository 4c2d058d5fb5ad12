// Overview: the whole cloud's capacity, used, reserved and free space per
// resource class, the fullest and emptiest providers, providers without
// inventory, consumers by type and by project.  One request, GET
// /summary, whatever the number of providers: the service adds it all up
// in SQL.
import * as api from './api.js';
import {h, fmt, plural, providerLink, section, usageBar} from './dom.js';

export async function renderOverview(main, {signal}) {
  const summary = await api.get('summary', null, signal);
  const providers = summary.resource_providers;
  for (const rp of [...summary.fullest_providers, ...summary.emptiest_providers,
                    ...summary.providers_without_inventory]) {
    api.rememberName(rp.uuid, rp.name);
  }
  main.append(
    h('h1', null, 'Overview'),
    h('div', {class: 'cards'},
      card('providers', providers.count, 'resource providers'),
      card('roots', providers.trees, 'trees'),
      card('no-inventory', providers.without_inventory, 'without inventory'),
      card('projects', summary.project_count, 'projects with allocations')),
    section('Capacity by resource class', classTable(summary.resource_classes)),
    h('div', {class: 'split'},
      section('Fullest providers', providerList('fullest', summary.fullest_providers)),
      section('Emptiest providers', providerList('emptiest', summary.emptiest_providers))),
    section('Providers without inventory',
      withoutInventory(summary.providers_without_inventory, providers.without_inventory)),
    section('Consumers by type', byType(summary.usages_by_consumer_type)),
    section('Consumers by project', byProject(summary.usages_by_project, summary.project_count)));
}

function card(id, value, label) {
  return h('div', {class: 'card', id: 'card-' + id},
    h('span', {class: 'big', 'data-field': 'value'}, fmt(value)), h('span', null, label));
}

function classTable(classes) {
  const names = Object.keys(classes).sort();
  if (!names.length) return h('p', {class: 'muted', id: 'classes'}, 'No inventory yet.');
  const num = (field, value, extra = '') => h('td', {class: 'num' + extra, 'data-field': field,
                                                     'data-label': field}, fmt(value));
  return h('div', {class: 'scroll', id: 'classes'}, h('table', {class: 'usage stack'},
    h('thead', null, h('tr', null, h('th', null, 'Class'),
                       h('th', null, h('span', {class: 'wide-only'}, 'Used / capacity')),
                       h('th', {class: 'num'}, 'Used'), h('th', {class: 'num'}, 'Capacity'),
                       h('th', {class: 'num'}, 'Reserved'), h('th', {class: 'num'}, 'Free'),
                       h('th', {class: 'num wide-only'}, 'Providers'))),
    h('tbody', null, names.map((rc) => {
      const t = classes[rc];
      const label = `${rc}: used ${fmt(t.used)} of ${fmt(t.capacity)}, reserved ${fmt(t.reserved)}`;
      return h('tr', {'data-rc': rc},
        h('th', {scope: 'row'}, rc),
        h('td', {class: 'bar-cell'}, usageBar(t.used, t.capacity, t.reserved, label)),
        num('used', t.used), num('capacity', t.capacity), num('reserved', t.reserved),
        num('free', t.free), num('providers', t.providers, ' wide-only'));
    }))));
}

// A provider is as full as its fullest class; no capacity left at all
// counts as one unit, as the service ranks them.
function percent(use) {
  if (use.capacity <= 0) return use.used > 0 ? 'over' : '0%';
  return `${Math.round(100 * use.used / use.capacity)}%`;
}

function providerList(id, uses) {
  if (!uses.length) return h('p', {class: 'muted', id}, 'No provider has inventory.');
  return h('ol', {class: 'fullest', id}, uses.map((use) =>
    h('li', {'data-uuid': use.uuid},
      providerLink(use.uuid, use.name), ' ',
      h('span', {class: 'muted'}, `${use.resource_class} ${fmt(use.used)} / ${fmt(use.capacity)}`), ' ',
      h('strong', {'data-field': 'percent'}, percent(use)))));
}

function withoutInventory(shown, count) {
  if (!count) return h('p', {class: 'muted', id: 'no-inventory'}, 'Every provider has inventory.');
  return h('div', {id: 'no-inventory'},
    h('p', {'data-field': 'count'}, plural(count, 'provider')),
    h('ul', {class: 'plain'}, shown.map((rp) => h('li', {'data-uuid': rp.uuid},
      providerLink(rp.uuid, rp.name)))),
    count > shown.length
      ? h('p', {class: 'muted'}, `the first ${shown.length} by name; and ${fmt(count - shown.length)} more`)
      : null);
}

function resourceText(group) {
  return Object.keys(group).filter((key) => key !== 'consumer_count').sort()
    .map((rc) => `${rc} ${fmt(group[rc])}`).join(', ');
}

function byType(usages) {
  const types = Object.keys(usages).sort();
  if (!types.length) return h('p', {class: 'muted', id: 'types'}, 'No consumers.');
  return h('div', {class: 'scroll'}, h('table', {class: 'list', id: 'types'},
    h('thead', null, h('tr', null, h('th', null, 'Type'), h('th', {class: 'num'}, 'Consumers'),
                       h('th', null, 'Resources'))),
    h('tbody', null, types.map((type) => h('tr', {'data-type': type},
      h('td', {'data-field': 'type'}, type),
      h('td', {class: 'num', 'data-field': 'count'}, fmt(usages[type].consumer_count)),
      h('td', {'data-field': 'resources'}, resourceText(usages[type])))))));
}

function byProject(projects, count) {
  if (!projects.length) return h('p', {class: 'muted', id: 'consumers'}, 'No consumers.');
  const rows = projects.flatMap((project) => Object.keys(project.usages).sort().map((type) => {
    const group = project.usages[type];
    return h('tr', {'data-project': project.project_id, 'data-type': type},
      h('td', {class: 'mono', 'data-field': 'project'}, project.project_id),
      h('td', {'data-field': 'type'}, type),
      h('td', {class: 'num', 'data-field': 'count'}, fmt(group.consumer_count)),
      h('td', {'data-field': 'resources'}, resourceText(group)));
  }));
  return h('div', {id: 'consumers'},
    h('div', {class: 'scroll'}, h('table', {class: 'list'},
      h('thead', null, h('tr', null, h('th', null, 'Project'), h('th', null, 'Type'),
                         h('th', {class: 'num'}, 'Consumers'), h('th', null, 'Resources'))),
      h('tbody', null, rows))),
    count > projects.length
      ? h('p', {class: 'muted small'},
          `The ${projects.length} projects with the most consumers, of ${fmt(count)}.`)
      : null);
}
