// Building the pages' markup from data: text always goes in as text (textContent), never as HTML,
// so a track title or key name cannot inject markup.

/** el('td', { className: 'x', dataset: { label: 'Name' } }, 'text', childNode, ...) */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name.startsWith('aria-') || name === 'role' || name === 'for') node.setAttribute(name, value);
    else node[name] = value;
  }
  for (const child of children) if (child !== undefined && child !== null) node.append(child);
  return node;
}

/** A table row whose cells carry their column's label (shown beside the value on a phone). */
export function row(labels, cells) {
  return el('tr', {}, ...cells.map((cell, i) => el('td', { dataset: { label: labels[i] } }, cell)));
}

export function show(target, text, kind = 'error') {
  target.textContent = text;
  target.className = `message ${kind}`;
}

const DATE_TIME = new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

export function when(iso) {
  return iso ? `${DATE_TIME.format(new Date(iso))} UTC` : 'never';
}

export function number(value) {
  return value === null || value === undefined ? 'unlimited' : value.toLocaleString('en-US');
}
