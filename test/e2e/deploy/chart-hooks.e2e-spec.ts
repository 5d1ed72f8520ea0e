// The chart's two pods that are not workloads: the pre-install/pre-upgrade credentials check and the
// `helm test` pod. Each is rendered, then the exact command it would run is run here: the check
// against real directories laid out as a mounted Secret, the test against a real gateway and worker.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  freePort,
  type RunningGateway,
  type RunningWorker,
  startGateway,
  startWorkerWithSnapshot,
  writeSnapshot,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  failureOf,
  findObject,
  type K8sObject,
  onDefaults,
  RELEASE,
  renderChart,
  templateArgs,
} from './support/helm.js';
import { type PodSpec, podSpecOf } from './support/pod-spec.js';

/** The hook Pod of a render whose name ends with `suffix`, or undefined. */
function podOf(objects: readonly K8sObject[], suffix: string): K8sObject | undefined {
  return objects.find((object) => object.kind === 'Pod' && object.metadata.name.endsWith(suffix));
}

/** Runs a pod's container command here (`node …`), with argument `from` replaced by `to`. */
function runCommand(
  pod: PodSpec,
  from: string,
  to: string,
): { status: number; stdout: string; stderr: string } {
  const [command, ...args] = pod.containers[0]?.command ?? [];
  expect(command).toBe('node');
  expect(args).toContain(from);
  const result = spawnSync(
    process.execPath,
    args.map((arg) => (arg === from ? to : arg)),
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A directory laid out as Kubernetes mounts a Secret: one file per key. */
function secretDir(data: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'modelgate-secret-'));
  mkdirSync(dir, { recursive: true });
  for (const [key, value] of Object.entries(data)) writeFileSync(path.join(dir, key), value);
  return dir;
}

describe('the credentials check hook', () => {
  let live: K8sObject[];
  let pod: K8sObject;
  let spec: PodSpec;
  let mountPath: string;

  beforeAll(() => {
    live = renderChart(onDefaults());
    pod = podOf(live, '-credentials-check') as K8sObject;
    spec = podSpecOf(pod);
    mountPath = spec.containers[0]?.volumeMounts?.[0]?.mountPath ?? '';
  });

  it('runs before the migration Job as a pre-install/pre-upgrade hook pod, mounting the Secret as an optional volume', () => {
    expect(pod.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    const migrations = findObject(live, 'Job', '-migrations');
    expect(Number(pod.metadata.annotations?.['helm.sh/hook-weight'])).toBeLessThan(
      Number(migrations.metadata.annotations?.['helm.sh/hook-weight']),
    );
    expect(pod.metadata.annotations?.['helm.sh/hook-delete-policy']).toBe(
      'before-hook-creation,hook-succeeded',
    );
    expect(spec.restartPolicy).toBe('Never');
    expect(spec.volumes).toEqual([
      { name: 'credentials', secret: { secretName: 'modelgate-credentials', optional: true } },
    ]);
    expect(spec.containers[0]?.volumeMounts).toEqual([{ name: 'credentials', mountPath, readOnly: true }]);
    expect(spec.containers[0]?.image).toBe(
      podSpecOf(findObject(live, 'Deployment', '-registry')).containers[0]?.image,
    );
    expect(spec.containers[0]?.securityContext).toMatchObject({
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
    });
  });

  it('fails naming the Secret, its namespace and the command to create it when the Secret is missing', () => {
    const result = runCommand(spec, mountPath, secretDir({}));
    expect(result.status).toBe(1);
    expect(result.stderr).toContain(
      `Secret "modelgate-credentials" in namespace "${RELEASE.namespace}" does not exist`,
    );
    expect(result.stderr).toContain(
      `kubectl -n ${RELEASE.namespace} create secret generic modelgate-credentials`,
    );
    for (const key of ['DATABASE_URL', 'REDIS_URL', 'REGISTRY_BOOTSTRAP_TOKEN'])
      expect(result.stderr).toContain(`--from-literal=${key}=`);
  });

  it('fails naming only the keys that are missing or empty, and passes when every key the release reads is there', () => {
    const partial = runCommand(
      spec,
      mountPath,
      secretDir({ DATABASE_URL: 'postgres://u:p@db/mg', REDIS_URL: '' }),
    );
    expect(partial.status).toBe(1);
    expect(partial.stderr).toContain('lacks the keys REDIS_URL, REGISTRY_BOOTSTRAP_TOKEN');
    const complete = runCommand(
      spec,
      mountPath,
      secretDir({
        DATABASE_URL: 'postgres://u:p@db/mg',
        REDIS_URL: 'redis://r:6379',
        REGISTRY_BOOTSTRAP_TOKEN: 'x'.repeat(32),
      }),
    );
    expect(complete.stderr).toBe('');
    expect(complete.status).toBe(0);
  });

  it('checks the keys of the mode: the node token’s key in live mode, only DATABASE_URL with a static snapshot', () => {
    const withNodeToken = podSpecOf(
      podOf(
        renderChart(
          onDefaults({ values: { credentials: { existingSecret: 'prod', keys: { nodeToken: 'NODE' } } } }),
        ),
        '-credentials-check',
      ) as K8sObject,
    );
    const tokenOnly = runCommand(
      withNodeToken,
      mountPath,
      secretDir({ DATABASE_URL: 'postgres://u:p@db/mg', REDIS_URL: 'redis://r:6379' }),
    );
    expect(tokenOnly.stderr).toMatch(/Secret "prod" in namespace "serving" lacks the keys NODE /);
    const staticPod = podSpecOf(
      podOf(
        renderChart(onDefaults({ values: { configSync: { mode: 'static' } } })),
        '-credentials-check',
      ) as K8sObject,
    );
    expect(runCommand(staticPod, mountPath, secretDir({ DATABASE_URL: 'postgres://u:p@db/mg' })).status).toBe(
      0,
    );
  });

  it('is not rendered when the chart creates the Secret, or when turned off', () => {
    const created = renderChart(
      onDefaults({
        values: {
          configSync: { mode: 'static' },
          credentials: { create: { enabled: true, databaseUrl: 'postgres://u:p@db/mg' } },
        },
      }),
    );
    expect(podOf(created, '-credentials-check')).toBeUndefined();
    const off = renderChart(onDefaults({ values: { credentials: { preflight: { enabled: false } } } }));
    expect(podOf(off, '-credentials-check')).toBeUndefined();
    const on = renderChart(onDefaults({ values: { credentials: { preflight: { enabled: true } } } }));
    expect(podOf(on, '-credentials-check')).toBeDefined();
    expect(
      failureOf(
        templateArgs({
          values: {
            configSync: { mode: 'static' },
            credentials: {
              preflight: { enabled: true },
              create: { enabled: true, databaseUrl: 'postgres://u:p@db/mg' },
            },
          },
        }),
      ),
    ).toMatch(/credentials.preflight.enabled checks the existing Secret .* renders no check: unset it/);
  });
});

describe('the `helm test` pod, against a real gateway and worker', () => {
  const SERVICE_URL = `http://mg-modelgate-gateway.${RELEASE.namespace}.svc.cluster.local:80`;
  let worker: RunningWorker;
  let gateway: RunningGateway;

  /** The test pod's spec rendered with `tests` values. */
  function testPod(tests: Record<string, unknown>): PodSpec {
    const pod = podOf(renderChart(onDefaults({ values: { tests } })), '-test') as K8sObject;
    expect(pod.metadata.annotations?.['helm.sh/hook']).toBe('test');
    return podSpecOf(pod);
  }

  beforeAll(async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'modelgate-helm-test-'));
    const port = await freePort();
    const snapshot = await writeSnapshot(dir, [{ name: 'bert', fixture: 'tiny-bert-sst2' }], {
      workerGroups: [{ name: 'default', addresses: [`127.0.0.1:${port}`] }],
      endpoints: [
        {
          name: 'sentiment',
          task: 'text-classification',
          routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
        },
      ],
    });
    worker = await startWorkerWithSnapshot(snapshot, { WORKER_GRPC_PORT: String(port) });
    gateway = await startGateway(snapshot);
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  it('targets the gateway Service and is admitted by the gateway NetworkPolicy when gatewayFrom is set', () => {
    expect(testPod({}).containers[0]?.command).toContain(SERVICE_URL);
    const production = renderChart({ files: ['ci/production-values.yaml'] });
    const policy = findObject(production, 'NetworkPolicy', '-gateway');
    expect(JSON.stringify(policy.spec)).toContain('"app.kubernetes.io/component":"test"');
  });

  it('serves one request to tests.endpoint and checks one prediction per input', () => {
    const pod = testPod({ endpoint: 'sentiment', body: { text: ['a fine film', 'a dull film'] } });
    const result = runCommand(pod, SERVICE_URL, gateway.url);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('GET /health/ready: 200, config revision 1');
    expect(result.stdout).toContain('GET /v2/health/ready: 200');
    expect(result.stdout).toContain('POST /serve/sentiment: 200, 2 prediction(s) from bert:1');
  });

  it('checks readiness only, and says so, without tests.endpoint', () => {
    const result = runCommand(testPod({}), SERVICE_URL, gateway.url);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('tests.endpoint is empty: no request served');
  });

  it('fails with the gateway’s answer when the endpoint cannot be served, and when the gateway cannot be reached', async () => {
    const unknown = runCommand(testPod({ endpoint: 'nope' }), SERVICE_URL, gateway.url);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/helm test failed: POST \/serve\/nope answered 404: .*nope/);
    const closed = runCommand(testPod({}), SERVICE_URL, `http://127.0.0.1:${await freePort()}`);
    expect(closed.status).toBe(1);
    expect(closed.stderr).toMatch(/helm test failed: GET http:\/\/127\.0\.0\.1:\d+\/health\/ready: /);
  });
});
