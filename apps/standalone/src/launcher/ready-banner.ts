import { relative } from 'node:path';
import { DEMO_NAME } from '../demo/demo-model.js';
import { demoCurlLine, displayAddress } from '../demo/demo-request.js';
import { type HomeLayout } from '../home/home-layout.js';
import { POLL_INTERVAL_MS } from '../processes/app-environments.js';
import { type StandaloneConfig } from '../standalone.config.js';

/** A path as the user would type it from the current directory. */
function shown(path: string): string {
  const fromHere = relative(process.cwd(), path);
  return fromHere.startsWith('..') || fromHere === '' ? path : fromHere;
}

/** What the launcher prints once everything answers: where things are and what to try. */
export function readyBanner(config: StandaloneConfig, layout: HomeLayout): string {
  const gateway = displayAddress(config.GATEWAY_HOST, config.GATEWAY_PORT);
  const registry = displayAddress(config.REGISTRY_HOST, config.REGISTRY_PORT);
  const worker = displayAddress(config.WORKER_HOST, config.WORKER_GRPC_PORT);
  const workerHttp = displayAddress(config.WORKER_HOST, config.WORKER_HTTP_PORT);
  const token =
    config.REGISTRY_BOOTSTRAP_TOKEN !== undefined
      ? 'the admin token is REGISTRY_BOOTSTRAP_TOKEN'
      : `admin token in ${shown(layout.adminToken)}`;
  const lines = [
    '',
    'modelgate is running: registry, gateway and one worker on this machine.',
    `  gateway   http://${gateway}   POST /serve/<endpoint>; OpenAPI at /docs`,
    `            ${displayAddress(config.GATEWAY_HOST, config.GATEWAY_GRPC_PORT)} (gRPC, Open Inference Protocol v2: text to endpoints, tensors to models)`,
    `  registry  http://${registry}   admin API; ${token}`,
    `  worker    ${worker} (gRPC, Open Inference Protocol v2); metrics at http://${workerHttp}/metrics`,
    config.DATABASE_URL === undefined
      ? `  postgres  embedded (PGlite), data in ${shown(layout.pgdata)}`
      : '  postgres  DATABASE_URL',
    config.REDIS_URL === undefined
      ? `  redis     none: config changes reach the nodes by polling (${POLL_INTERVAL_MS} ms); async inference answers 503`
      : '  redis     REDIS_URL: announcements, heartbeats and worker discovery',
    '',
  ];
  if (config.MODELGATE_DEMO) {
    lines.push(
      'Try it:',
      `  ${demoCurlLine(config.GATEWAY_HOST, config.GATEWAY_PORT)}`,
      '',
      `The ${DEMO_NAME} model is a real BERT graph and tokenizer with random weights: its labels are meaningless.`,
    );
  }
  if (config.REGISTRY_BOOTSTRAP_TOKEN === undefined) {
    lines.push(
      `Admin calls: export MODELGATE_TOKEN=$(cat ${shown(layout.adminToken)}); the README shows how to serve a real model.`,
    );
  }
  lines.push(
    `Ctrl-C stops everything; what was registered stays in ${shown(layout.root)} for the next start.`,
    '',
  );
  return `${lines.join('\n')}\n`;
}
