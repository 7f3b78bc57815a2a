// A tiny reverse proxy for the conformance run: the official suite sends no credentials, and the
// conformance host, like every Toolgate MCP server, answers 401 without a bearer token. The proxy adds
// `Authorization: Bearer <token>` to each request and passes everything else through unchanged, in both
// directions and as it arrives (event streams are not buffered). Test fixture only.
//
//   node proxy.mjs --listen 8766 --target 8765 --token conformance-token
import http from "node:http";

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) => {
  if (arg.startsWith("--")) pairs.push([arg.slice(2), all[i + 1]]);
  return pairs;
}, []));
const listen = Number(args.listen ?? "0");
const target = Number(args.target);
const token = args.token;
if (!Number.isInteger(listen) || !target || !token) {
  console.error("usage: node proxy.mjs --listen PORT --target PORT --token TOKEN");
  process.exit(2);
}

const agent = new http.Agent({ keepAlive: true });
const server = http.createServer((req, res) => {
  const headers = { ...req.headers, authorization: `Bearer ${token}` };
  const upstream = http.request({ host: "127.0.0.1", port: target, method: req.method, path: req.url, headers, agent },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      res.flushHeaders();
      answer.pipe(res);
    });
  upstream.on("error", (error) => {
    if (!res.headersSent) {
      res.writeHead(502, { "content-type": "text/plain" });
    }
    res.end(`proxy: ${error.message}`);
  });
  res.on("close", () => upstream.destroy());
  req.pipe(upstream);
});
// --listen 0 takes a free port; the line below names it (run.sh reads it)
server.listen(listen, "127.0.0.1", () => console.log(`proxy on http://localhost:${server.address().port}/mcp -> 127.0.0.1:${target}`));
