// `node --test crates/gyoku-server/web/js/`: the page's modules import one another without
// a circle, and import only names a module exports and then uses. A circle between ES
// modules works until one of them reads the other at load time; a dead import is how the
// one circle there was began (i18n.js ⇄ page.js).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const modules = readdirSync(here).filter((f) => f.endsWith('.js') && !f.endsWith('.test.js'));

// `import { a, b as c } from './x.js';` (each import statement of a module, one per line or
// spread over lines).
const IMPORT = /import\s*\{([^}]*)\}\s*from\s*'\.\/([\w.-]+)'/g;

function importsOf(file) {
  const text = readFileSync(join(here, file), 'utf8');
  const found = [];
  for (const m of text.matchAll(IMPORT)) {
    const names = m[1].split(',').map((n) => n.trim()).filter(Boolean)
      .map((n) => n.split(/\s+as\s+/).pop());
    found.push({ from: m[2], names });
  }
  return { text, found };
}

test('no import circle among the page modules', () => {
  const graph = new Map(modules.map((f) => [f, importsOf(f).found.map((i) => i.from)]));
  const state = new Map();
  const circles = [];
  const visit = (f, path) => {
    if (state.get(f) === 'done') return;
    if (state.get(f) === 'open') {
      circles.push([...path.slice(path.indexOf(f)), f].join(' → '));
      return;
    }
    state.set(f, 'open');
    for (const g of graph.get(f) ?? []) visit(g, [...path, f]);
    state.set(f, 'done');
  };
  for (const f of modules) visit(f, []);
  assert.deepEqual(circles, []);
});

test('every imported name is used in the module that imports it', () => {
  const unused = [];
  for (const f of modules) {
    const { text, found } = importsOf(f);
    const body = text.replace(IMPORT, '');
    for (const { from, names } of found) {
      for (const name of names) {
        if (!new RegExp(`\\b${name}\\b`).test(body)) unused.push(`${f}: ${name} from ${from}`);
      }
    }
  }
  assert.deepEqual(unused, []);
});
