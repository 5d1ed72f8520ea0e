// Container healthcheck without curl or wget in the image: `node docker/healthcheck.js <url>`
// exits 0 when the URL answers 2xx within the timeout, 1 otherwise (compose `healthcheck.test`).
const [url] = process.argv.slice(2);
const TIMEOUT_MS = 3000;

if (url === undefined) {
  process.stderr.write('usage: node docker/healthcheck.js <url>\n');
  process.exit(2);
}

try {
  const response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS) });
  process.exit(response.ok ? 0 : 1);
} catch (error) {
  process.stderr.write(`${url}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
