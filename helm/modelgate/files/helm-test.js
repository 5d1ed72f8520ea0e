// `helm test` of the chart (templates/tests/gateway-test-pod.yaml), run in the gateway image as
//   node --input-type=module -e <this file> -- <gateway URL> <endpoint, or ""> <JSON body>
// It checks what a client of the release relies on, through the gateway Service: /health/ready and
// KServe's /v2/health/ready answer 200, then, when an endpoint is given, POST /serve/<endpoint>
// answers 200 with one prediction per input. Exits 1 with the first thing that failed.
const [baseUrl = '', endpoint = '', body = '{}'] = process.argv.slice(1);
const TIMEOUT_MS = 30_000;

/** Prints why the test failed and exits 1. */
function fail(message) {
  console.error(`helm test failed: ${message}`);
  process.exit(1);
}

/** Sends one request; returns status, headers and the parsed (or raw) body. */
async function call(method, path, payload) {
  let response;
  try {
    response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: payload === undefined ? {} : { 'content-type': 'application/json' },
      body: payload,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    fail(`${method} ${baseUrl}${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const text = await response.text();
  let parsed = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text for the message
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** A short form of an answer's body for messages. */
function describe(answer) {
  return JSON.stringify(answer.body).slice(0, 500);
}

const ready = await call('GET', '/health/ready');
if (ready.status !== 200) fail(`GET /health/ready answered ${ready.status}: ${describe(ready)}`);
console.log(`GET /health/ready: 200, config revision ${ready.body.revision}`);
for (const [name, verdict] of Object.entries(ready.body.endpoints ?? {})) {
  console.log(`  endpoint ${name}: ${verdict.ready ? 'servable' : `not servable (${verdict.reason})`}`);
}

const kserve = await call('GET', '/v2/health/ready');
if (kserve.status !== 200) fail(`GET /v2/health/ready answered ${kserve.status}: ${describe(kserve)}`);
console.log('GET /v2/health/ready: 200');

if (endpoint === '') {
  console.log('tests.endpoint is empty: no request served (set it to have `helm test` serve one)');
  process.exit(0);
}

let request;
try {
  request = JSON.parse(body);
} catch {
  fail(`tests.body is not JSON: ${body}`);
}
const path = `/serve/${encodeURIComponent(endpoint)}`;
const served = await call('POST', path, JSON.stringify(request));
if (served.status !== 200) fail(`POST ${path} answered ${served.status}: ${describe(served)}`);
const predictions = served.body?.predictions;
if (!Array.isArray(predictions))
  fail(`POST ${path} answered 200 without a predictions array: ${describe(served)}`);
// One prediction per text; a body of raw tensors (`inputs`) needs at least one.
const inputs = request.text === undefined ? undefined : Array.isArray(request.text) ? request.text.length : 1;
if (inputs === undefined ? predictions.length === 0 : predictions.length !== inputs) {
  fail(
    `POST ${path} answered ${predictions.length} predictions for ${inputs ?? 'the'} inputs: ${describe(served)}`,
  );
}
console.log(
  `POST ${path}: 200, ${predictions.length} prediction(s) from ${served.headers.get('x-modelgate-model')}` +
    ` (route ${served.body.route}; Server-Timing: ${served.headers.get('server-timing')})`,
);
