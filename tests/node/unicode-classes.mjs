// Prints, for each character class o200k_base's split pattern uses, the code point ranges that
// this Node's RegExp puts in it: {"L": [[lo, hi], ...], ...}. A test compares them with ours.
const classes = {
  L: /\p{L}/u, N: /\p{N}/u, Lu: /\p{Lu}/u, Lt: /\p{Lt}/u, Lm: /\p{Lm}/u, Lo: /\p{Lo}/u,
  M: /\p{M}/u, Ll: /\p{Ll}/u, s: /\s/u,
};
const out = {};
for (const [name, re] of Object.entries(classes)) {
  const ranges = [];
  let start = -1;
  for (let cp = 0; cp <= 0x110000; cp++) {
    const inside = cp < 0x110000 && (cp < 0xd800 || cp > 0xdfff) && re.test(String.fromCodePoint(cp));
    if (inside && start < 0) start = cp;
    if (!inside && start >= 0) { ranges.push([start, cp - 1]); start = -1; }
  }
  out[name] = ranges;
}
process.stdout.write(JSON.stringify({ unicode: process.versions.unicode, classes: out }));
