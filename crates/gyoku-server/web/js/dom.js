// Elements and the JSON API.

export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
  return e;
}

const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element with its attributes and children. */
export function svg(tag, attrs, ...children) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  e.append(...children);
  return e;
}

export async function api(method, path, body) {
  // A JSON body says so (the server refuses one that does not); a record file goes as it is.
  const headers = typeof body === 'string' ? { 'Content-Type': 'application/json' } : {};
  const res = await fetch(path, { method, body, headers });
  const type = res.headers.get('content-type') || '';
  const data = type.includes('json') ? await res.json() : await res.text();
  if (!res.ok) {
    const err = data && data.error ? data.error : { code: String(res.status), message: String(data) };
    const e = new Error(`${err.code}: ${err.message}`);
    e.info = err;
    throw e;
  }
  return data;
}
