// Reads KI2 files with tsshogi (npm, MIT) and prints one JSON line per file:
// {"file": ..., "moves": [usi...]} or {"file": ..., "error": ...}.
// Usage: TSSHOGI_NODE_PATH=DIR/node_modules node .ci/tsshogi_ki2.mjs FILE...
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

const require = createRequire(`${process.env.TSSHOGI_NODE_PATH}/`);
const { importKI2 } = require("tsshogi");

for (const file of process.argv.slice(2)) {
  const bytes = readFileSync(file);
  const encoding = file.endsWith("u") ? "utf-8" : "shift_jis";
  const text = new TextDecoder(encoding).decode(bytes);
  const record = importKI2(text);
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
