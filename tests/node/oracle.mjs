// Reads one base64 wire text per line on stdin; for each prints one JSON line with what Node
// computes: canonical = JSON.stringify(JSON.parse(text)) (or the parse error), its sha256 and,
// when js-tiktoken can be found, its o200k_base token count. Used only by tests as an oracle.
import { createHash } from "node:crypto";
import { createInterface } from "node:readline";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
let encoding = null;
const tiktokenDir = process.env.JS_TIKTOKEN_DIR;
if (tiktokenDir) {
  try {
    const { getEncoding } = require(tiktokenDir);
    encoding = getEncoding("o200k_base");
  } catch (e) {
    encoding = null;
  }
}

const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const text = Buffer.from(line, "base64").toString("utf8");
  let out;
  try {
    const canonical = JSON.stringify(JSON.parse(text));
    out = {
      ok: true,
      canonical,
      sha256: createHash("sha256").update(canonical, "utf8").digest("hex"),
      tokens: encoding ? encoding.encode(canonical, [], []).length : null,
    };
  } catch (e) {
    out = { ok: false, error: String(e) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
});
