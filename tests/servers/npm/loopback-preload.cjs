// Preloaded with `node --require` by tests/servers/registry.py when a real HTTP server is started.
// It makes `listen(port)` calls without a host bind to 127.0.0.1 (never all interfaces) and
// reports the bound port on stderr as "MCPCOST_LISTENING <port>" so a test can use port 0.
"use strict";
const net = require("node:net");
const original = net.Server.prototype.listen;
net.Server.prototype.listen = function patchedListen(...args) {
  const first = args[0];
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    const rest = args.slice(1);
    if (typeof rest[0] !== "string") {
      args = [Number(first), "127.0.0.1", ...rest];
    }
  } else if (first && typeof first === "object" && !("path" in first) && !first.host) {
    args = [{ ...first, host: "127.0.0.1" }, ...args.slice(1)];
  }
  this.once("listening", () => {
    const address = this.address();
    if (address && typeof address === "object") {
      process.stderr.write(`MCPCOST_LISTENING ${address.port}\n`);
    }
  });
  return original.apply(this, args);
};
