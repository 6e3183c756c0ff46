// Building elements without ever parsing server text as HTML.

/**
 * h('button', {className: 'card', onclick: f, 'aria-pressed': 'false'}, 'text', child)
 * Strings become text nodes; `null`/`false` children are skipped.
 */
export function h(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === 'className') node.className = value;
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2), value);
    } else if (key === 'value') node.value = value;
    else if (key === 'checked' || key === 'disabled' || key === 'hidden')
      node[key] = Boolean(value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace a container's children, keeping keyboard focus on the element with
 * the same `data-focus` key when the old focused element was replaced. */
export function fill(container, ...children) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.dataset.focus : undefined;
  container.replaceChildren();
  append(container, children);
  if (key !== undefined) {
    const again = [...container.querySelectorAll('[data-focus]')].find(
      (n) => n.dataset.focus === key,
    );
    if (again) again.focus({ preventScroll: true });
  }
}

export const $ = (selector, root = document) => root.querySelector(selector);

export function setText(selector, text) {
  const node = $(selector);
  if (node) node.textContent = text;
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The path segment after `/table/` or `/replay/`. */
export function gameIdFromPath() {
  const parts = window.location.pathname.split('/').filter(Boolean);
  return decodeURIComponent(parts[parts.length - 1] || '');
}
