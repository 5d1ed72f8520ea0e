// The chart's pre-install/pre-upgrade credentials check (templates/credentials-check-pod.yaml), run in
// the registry image as
//   node --input-type=module -e <this file> -- <dir> <secret> <namespace> <KEY=example>...
// The Secret is mounted at <dir> as an optional volume: a missing Secret is an empty directory and a
// missing key a missing file. It exits 1 naming what is missing and how to create it, so the install
// fails within seconds instead of waiting on a migration Job and pods that cannot start.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir = '', secret = '', namespace = '', ...expected] = process.argv.slice(1);
const keys = expected.map((pair) => {
  const at = pair.indexOf('=');
  return { key: pair.slice(0, at), example: pair.slice(at + 1) };
});

/** Whether the mounted Secret has `key` with a non-empty value. */
function present(key) {
  try {
    return readFileSync(join(dir, key), 'utf8').trim() !== '';
  } catch {
    return false;
  }
}

const missing = keys.filter(({ key }) => !present(key));
if (missing.length === 0) {
  console.log(`credentials check: Secret "${secret}" has ${keys.map(({ key }) => key).join(', ')}`);
  process.exit(0);
}

const whole = missing.length === keys.length;
const lines = [
  whole
    ? `credentials check failed: Secret "${secret}" in namespace "${namespace}" does not exist (or has none of the keys ${keys.map(({ key }) => key).join(', ')}).`
    : `credentials check failed: Secret "${secret}" in namespace "${namespace}" lacks the keys ${missing.map(({ key }) => key).join(', ')} (an empty value counts as missing).`,
  whole ? 'Create it, then install again:' : 'Add them to it, or delete it and create it with every key:',
  `  kubectl -n ${namespace} create secret generic ${secret} \\`,
  ...keys.map(
    ({ key, example }, i) => `    --from-literal=${key}=${example}${i < keys.length - 1 ? ' \\' : ''}`,
  ),
  'Or point credentials.existingSecret and credentials.keys.* at the Secret you have.',
];
console.error(lines.join('\n'));
process.exit(1);
