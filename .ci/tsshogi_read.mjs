// Reads KI2 and JKF files with tsshogi (npm, MIT) and prints one JSON line per file:
// {"file": ..., "moves": [usi...]} or {"file": ..., "error": ...}.
// Usage: TSSHOGI_NODE_PATH=DIR/node_modules node .ci/tsshogi_read.mjs FILE...
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(`${process.env.TSSHOGI_NODE_PATH}/`);
const { importKI2, importJKFString } = require("tsshogi");

for (const file of process.argv.slice(2)) {
  const bytes = readFileSync(file);
  const jkf = file.endsWith(".jkf");
  const encoding = jkf || file.endsWith("u") ? "utf-8" : "shift_jis";
  const text = new TextDecoder(encoding).decode(bytes);
  let record;
  try {
    record = jkf ? importJKFString(text) : importKI2(text);
  } catch (e) {
    record = e instanceof Error ? e : new Error(String(e));
  }
  if (record instanceof Error) {
    console.log(JSON.stringify({ file, error: record.message }));
    continue;
  }
  const moves = [];
  for (const node of record.moves) {
    if (node.move && node.move.usi) moves.push(node.move.usi);
  }
  console.log(JSON.stringify({ file, moves }));
}
