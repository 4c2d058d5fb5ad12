// What if: the changes POST /capacity applies before it counts (hosts
// taken out, hosts added like one, the instances of those taken out moved,
// and N+1), as fields of the Capacity page.  They live in the location
// hash beside the shapes, under names starting with "@", which the page
// keeps from shape names.
import {h, fmt, plural, providerLink, consumerLink, section} from './dom.js';

export const MARK = '@';
// The consumers of the evacuation listed (the answer may hold thousands).
const SHOWN = 50;
const FIELDS = [
  ['@without_root', 'Take out hosts', 'root provider uuids, drained or lost'],
  ['@without_aggregate', 'Take out aggregates', 'aggregate uuids: every host with a provider in one'],
  ['@with', 'Add hosts like', 'a root uuid and how many, e.g. <uuid> 10; several separated by commas'],
  ['@survive_member_of', 'N+1 within', 'an aggregate uuid (blank: every host)'],
];
const CHECKS = [
  ['@evacuate', 'Move the instances of the hosts taken out first'],
  ['@survive', 'N+1: can each host\'s instances go elsewhere if it is lost'],
];

function words(text) {
  return text.split(/[\s,]+/).filter(Boolean);
}

// The form's fields, filled from the hash's ``changes`` (a Map).
export function changesFields(changes) {
  return h('fieldset', {class: 'group wide', id: 'what-if'},
    h('legend', null, 'What if (optional)'),
    FIELDS.map(([key, label, hint]) => h('label', null, h('span', null, label),
      h('input', {name: key, value: changes.get(key) || '', placeholder: hint}))),
    CHECKS.map(([key, label]) => h('label', {class: 'check'},
      h('input', {type: 'checkbox', name: key, checked: changes.has(key)}),
      h('span', null, label))));
}

// [[name, value]] of the filled fields of ``form``, for the hash.
export function changesEntries(form) {
  const entries = [];
  for (const [key] of FIELDS) {
    const value = form.elements[key].value.trim();
    if (value) entries.push([key, value]);
  }
  for (const [key] of CHECKS) {
    if (form.elements[key].checked) entries.push([key, '1']);
  }
  return entries;
}

// The changes of POST /capacity's body from the hash's ``changes``;
// throws on an "Add hosts like" entry without a uuid and a count.
export function changesBody(changes) {
  const body = {};
  const without = {};
  if (changes.has('@without_root')) without.roots = words(changes.get('@without_root'));
  if (changes.has('@without_aggregate')) without.aggregates = words(changes.get('@without_aggregate'));
  if (Object.keys(without).length) body.without = without;
  if (changes.has('@with')) {
    body.with = changes.get('@with').split(',').map((part) => part.trim()).filter(Boolean)
      .map((part) => {
        const match = /^(\S+)\s+(\d+)$/.exec(part);
        if (!match) throw new Error(`"${part}" is not a root uuid, a space and a count.`);
        return {like: match[1], count: Number(match[2])};
      });
  }
  if (changes.has('@evacuate')) body.evacuate = true;
  if (changes.has('@survive')) {
    body.survive = changes.has('@survive_member_of')
      ? {each_root: true, member_of: changes.get('@survive_member_of').trim()} : 'each_root';
  }
  return body;
}

// A root named in an answer: a provider, or a copy "<uuid>#<n>" that
// exists only in the count.
export function rootLink(uuid, name) {
  if (uuid.includes('#')) return h('span', {class: 'rp', title: 'a host added by the what if'}, name || uuid);
  return providerLink(uuid, name || uuid);
}

// The consumers of the evacuation the page lists (the first SHOWN).
function listed(moved) {
  return Object.entries(moved.consumers).slice(0, SHOWN);
}

// The providers the evacuation and N+1 sections name (copies aside).
export function namedRoots(answer) {
  const roots = new Set();
  if (answer.evacuation) {
    for (const [, move] of listed(answer.evacuation)) if (move.to) roots.add(move.to);
  }
  for (const root of answer.survive ? answer.survive.failing : []) roots.add(root.uuid);
  return [...roots].filter((uuid) => !uuid.includes('#'));
}

// The answer's evacuation and N+1 sections (none when not asked);
// ``names``: {uuid: name} of namedRoots.
export function changesSections(answer, names) {
  const found = [];
  const moved = answer.evacuation;
  if (moved) {
    const consumers = listed(moved);
    found.push(section('Instances moved',
      h('p', {id: 'evacuation'},
        h('strong', {'data-field': 'moved'}, fmt(moved.moved)), ' moved, ',
        h('strong', {'data-field': 'nowhere'}, fmt(moved.nowhere)), ' with nowhere to go, ',
        h('span', {'data-field': 'dropped'}, fmt(moved.dropped)), ' migration holds dropped.'),
      consumers.length ? h('div', {class: 'scroll'}, h('table', {class: 'list', id: 'moves'},
        h('thead', null, h('tr', null, h('th', null, 'Consumer'), h('th', null, 'To'),
          h('th', null, 'Shape'))),
        h('tbody', null, consumers.map(([uuid, move]) => h('tr', {'data-consumer': uuid},
          h('td', null, consumerLink(uuid)),
          h('td', {'data-field': 'to'}, move.to ? rootLink(move.to, names.get(move.to)) : h('em', null, 'nowhere')),
          h('td', {'data-field': 'by', class: 'muted small'},
            move.by === 'given' ? 'as given' : 'its recorded amounts')))))) : null,
      Object.keys(moved.consumers).length > consumers.length
        ? h('p', {class: 'muted small'}, `The first ${consumers.length}, in the order they were moved.`)
        : null));
  }
  if (answer.survive) {
    const failing = answer.survive.failing;
    found.push(section('N+1',
      failing.length ? h('div', null,
        h('p', null, plural(failing.length, 'host'), ' whose loss the others cannot absorb:'),
        h('table', {class: 'list', id: 'failing'},
          h('thead', null, h('tr', null, h('th', null, 'Host'),
            h('th', {class: 'num'}, 'Instances with nowhere to go'))),
          h('tbody', null, failing.map((root) => h('tr', {'data-uuid': root.uuid},
            h('td', null, rootLink(root.uuid, names.get(root.uuid))),
            h('td', {class: 'num', 'data-field': 'nowhere'}, fmt(root.nowhere)))))))
        : h('p', {id: 'failing'}, 'The instances of any one host can go elsewhere.')));
  }
  return found;
}
