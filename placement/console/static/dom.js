// Building the page: every string goes in as a text node or an attribute
// value, never as markup, so names from the API cannot inject anything.
const SVG = 'http://www.w3.org/2000/svg';

export function h(tag, attrs, ...children) {
  return fill(document.createElement(tag), attrs, children);
}

export function s(tag, attrs, ...children) {
  return fill(document.createElementNS(SVG, tag), attrs, children);
}

function fill(el, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) {
      el.addEventListener(key.slice(2), value);
    } else {
      el.setAttribute(key, value === true ? '' : String(value));
    }
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

export function clear(el) {
  el.replaceChildren();
  return el;
}

export function fmt(n) {
  return Number(n).toLocaleString('en-US', {maximumFractionDigits: 2});
}

export function plural(n, word) {
  return `${fmt(n)} ${word}${n === 1 ? '' : 's'}`;
}

export function link(route, text, attrs) {
  return h('a', {href: '#/' + route, ...attrs}, text);
}

export function providerLink(uuid, name) {
  return link('provider/' + encodeURIComponent(uuid), name, {class: 'rp'});
}

export function consumerLink(uuid) {
  return link('consumer/' + encodeURIComponent(uuid), uuid, {class: 'mono'});
}

// A usage bar: used from the left, reserved shaded at the right end,
// drawn on the scale of (total x allocation ratio).
export function usageBar(used, capacity, reserved, title) {
  const scale = Math.max(capacity + reserved, used, 1);
  const pct = (v) => (100 * v / scale).toFixed(3);
  const svg = s('svg', {class: 'bar', viewBox: '0 0 100 10', preserveAspectRatio: 'none',
                        role: 'img', 'aria-label': title},
    s('title', null, title),
    s('rect', {class: 'bar-free', width: 100, height: 10}),
    reserved > 0 ? s('rect', {class: 'bar-reserved', x: pct(scale - reserved),
                              width: pct(reserved), height: 10}) : null,
    s('rect', {class: used > capacity ? 'bar-used over' : 'bar-used',
               width: pct(Math.min(used, scale)), height: 10}));
  return svg;
}

// One row per resource class: name, bar, "used / capacity" and reserved.
export function usageTable(rows, attrs) {
  if (!rows.length) return h('p', {class: 'muted'}, 'No inventory.');
  return h('table', {class: 'usage stack', ...attrs},
    rows.map((r) => {
      const reservedUnits = Math.floor(r.reserved * r.ratio);
      const text = `used ${fmt(r.used)} of ${fmt(r.capacity)}`;
      return h('tr', {'data-rc': r.rc},
        h('th', {scope: 'row'}, r.rc),
        h('td', {class: 'bar-cell'}, usageBar(r.used, r.capacity, reservedUnits,
                                              `${r.rc}: ${text}, reserved ${fmt(r.reserved)}`)),
        h('td', {class: 'num', 'data-field': 'usage'}, text),
        h('td', {class: 'num muted', 'data-field': 'reserved'},
          r.reserved ? `reserved ${fmt(r.reserved)}` : ''));
    }));
}

export function errorBox(error) {
  return h('p', {class: 'error', role: 'alert'},
    error.status ? `The API answered ${error.status}: ${error.message}` : String(error.message || error));
}

export function section(title, ...children) {
  return h('section', {class: 'panel'}, h('h2', null, title), ...children);
}

// Route and query of the location hash: "#/providers?x=1" -> ['providers', 'x=1'].
export function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const at = raw.indexOf('?');
  return at < 0 ? [raw, ''] : [raw.slice(0, at), raw.slice(at + 1)];
}
