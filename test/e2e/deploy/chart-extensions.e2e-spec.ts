// The chart's per-component extensions (extraEnv, extraVolumes, extraVolumeMounts, initContainers,
// sidecars, topologySpreadConstraints, priorityClassName), the ServiceMonitor's label handling, the
// values it refuses (app settings in extraEnv, clashing names, more than one GPU, no image
// registry) and Chart.yaml's metadata.
import { MODELGATE_VERSION } from '@modelgate/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  findObject,
  helmTemplate,
  type K8sObject,
  onDefaults,
  RELEASE,
  renderChart,
  type ValuesInput,
} from './support/helm.js';
import { validateKubernetesObject } from './support/kubernetes-schemas.js';
import { podSpecOf } from './support/pod-spec.js';
import { readRepoFile } from './support/repo.js';

const EXTENSIONS: ValuesInput = { files: ['ci/extensions-values.yaml'] };
const extensionValues = parse(readRepoFile('helm', 'modelgate', 'ci', 'extensions-values.yaml')) as Record<
  'registry' | 'gateway' | 'worker',
  {
    extraEnv: { name: string }[];
    extraVolumes: { name: string }[];
    extraVolumeMounts: { name: string; mountPath: string }[];
    initContainers: { name: string }[];
    sidecars: { name: string }[];
    topologySpreadConstraints: { labelSelector?: unknown }[];
    priorityClassName: string;
  }
>;

let defaults: K8sObject[];
let extended: K8sObject[];

beforeAll(() => {
  defaults = renderChart(onDefaults());
  extended = renderChart(EXTENSIONS);
});

/** helm's combined output of a `helm template` expected to fail. */
function templateFailure(input: ValuesInput): string {
  const result = helmTemplate(input);
  expect(result.status, 'helm should have refused these values').not.toBe(0);
  return result.stderr + result.stdout;
}

const selectorOf = (component: string) => ({
  matchLabels: {
    'app.kubernetes.io/name': 'modelgate',
    'app.kubernetes.io/instance': RELEASE.name,
    'app.kubernetes.io/component': component,
  },
});

describe('helm/modelgate extensions', () => {
  it('render manifests that validate against the Kubernetes schemas', () => {
    expect(extended.length).toBeGreaterThan(10);
    for (const object of extended) validateKubernetesObject(object);
  });

  it.each(['registry', 'gateway', 'worker'] as const)(
    'renders %s.extraEnv, extraVolumes, extraVolumeMounts, initContainers and sidecars where they belong',
    (component) => {
      const values = extensionValues[component];
      const pod = podSpecOf(findObject(extended, 'Deployment', `-${component}`));
      const [main, ...others] = pod.containers;
      expect(main?.name).toBe(component);
      const envNames = (main?.env ?? []).map((env) => env.name);
      expect(envNames.slice(-values.extraEnv.length)).toEqual(values.extraEnv.map((env) => env.name));
      expect(pod.volumes?.slice(-values.extraVolumes.length)).toEqual(values.extraVolumes);
      expect(main?.volumeMounts?.slice(-values.extraVolumeMounts.length)).toEqual(values.extraVolumeMounts);
      expect(pod.initContainers).toEqual(values.initContainers);
      expect(others).toEqual(values.sidecars);
      // Nothing of it leaks into the default render.
      const plain = podSpecOf(findObject(defaults, 'Deployment', `-${component}`));
      expect(plain.initContainers).toBeUndefined();
      expect(plain.containers.map((container) => container.name)).toEqual([component]);
    },
  );

  it.each(['registry', 'gateway', 'worker'] as const)(
    'gives %s pods their priorityClassName and topologySpreadConstraints, selecting their own pods unless told otherwise',
    (component) => {
      const values = extensionValues[component];
      const pod = podSpecOf(findObject(extended, 'Deployment', `-${component}`));
      expect(pod.priorityClassName).toBe(values.priorityClassName);
      expect(pod.topologySpreadConstraints).toEqual(
        values.topologySpreadConstraints.map((constraint) => ({
          labelSelector: selectorOf(component),
          ...constraint,
        })),
      );
      const plain = podSpecOf(findObject(defaults, 'Deployment', `-${component}`));
      expect(plain.priorityClassName).toBeUndefined();
      expect(plain.topologySpreadConstraints).toBeUndefined();
    },
  );

  it('gives the migration Job the registry’s extraEnv, extraVolumes and extraVolumeMounts, not its sidecars or init containers', () => {
    const values = extensionValues.registry;
    const job = podSpecOf(findObject(extended, 'Job', '-migrations'));
    expect(job.containers.map((container) => container.name)).toEqual(['migrate']);
    expect(job.initContainers).toBeUndefined();
    expect(job.containers[0]?.env?.map((env) => env.name)).toEqual([
      'DATABASE_URL',
      'DATABASE_SCHEMA',
      ...values.extraEnv.map((env) => env.name),
    ]);
    expect(job.volumes?.map((volume) => volume.name)).toEqual(['tmp', 'postgres-ca']);
    expect(job.containers[0]?.volumeMounts?.at(-1)).toEqual(values.extraVolumeMounts[0]);
  });

  it.each([
    ['gateway', 'GATEWAY_PORT'],
    ['gateway', 'REDIS_URL'],
    ['worker', 'WORKER_ADVERTISE_ADDRESS'],
    ['worker', 'S3_ENDPOINT_URL'],
    ['registry', 'DATABASE_URL'],
    ['registry', 'HF_TOKEN'],
    ['registry', 'REGISTRY_LOG_LEVEL'],
  ] as const)(
    'refuses %s.extraEnv %s, a variable the app reads (it goes under env or is the chart’s)',
    (component, name) => {
      const output = templateFailure(
        onDefaults({ values: { [component]: { extraEnv: [{ name, value: 'x' }] } } }),
      );
      expect(output).toMatch(new RegExp(`/${component}/extraEnv/0/name`));
    },
  );

  it.each([
    [
      'gateway',
      { extraVolumes: [{ name: 'cache', emptyDir: {} }] },
      /gateway.extraVolumes: the volume name "cache" is the chart's own/,
    ],
    [
      'worker',
      { extraVolumes: [{ name: 'snapshot', emptyDir: {} }] },
      /worker.extraVolumes: the volume name "snapshot"/,
    ],
    [
      'registry',
      { extraVolumes: [{ name: 'artifacts', emptyDir: {} }] },
      /registry.extraVolumes: the volume name "artifacts"/,
    ],
    [
      'worker',
      { sidecars: [{ name: 'worker', image: 'r.example.com/x:1' }] },
      /worker.initContainers\/sidecars: the container name "worker" is the chart's own/,
    ],
    [
      'gateway',
      { extraVolumeMounts: [{ name: 'x', mountPath: '/tmp' }] },
      /gateway.extraVolumeMounts: \/tmp is already mounted by the chart/,
    ],
  ] as const)(
    'refuses %s extensions that clash with the chart’s own names (%j)',
    (component, values, message) => {
      expect(templateFailure(onDefaults({ values: { [component]: values } }))).toMatch(message);
    },
  );

  it.each([
    [
      'a container field',
      { sidecars: [{ name: 'x', image: 'r.example.com/x:1', imagePullPolicyy: 'Always' }] },
      /imagePullPolicyy/,
    ],
    [
      'a volume source the schema does not know',
      { extraVolumes: [{ name: 'x', gitRepo: { repository: 'r' } }] },
      /gitRepo/,
    ],
    [
      'a spread constraint without its topologyKey',
      { topologySpreadConstraints: [{ maxSkew: 1, whenUnsatisfiable: 'DoNotSchedule' }] },
      /topologyKey/,
    ],
  ] as const)('refuses %s through values.schema.json', (_what, values, message) => {
    expect(templateFailure(onDefaults({ values: { gateway: values } }))).toMatch(message);
  });
});

describe('helm/modelgate ServiceMonitors', () => {
  it('keep the apps’ labels by default (honorLabels), and pass relabelings and metricRelabelings through', () => {
    const monitors = renderChart(
      onDefaults({ values: { metrics: { serviceMonitor: { enabled: true } } } }),
    ).filter((object) => object.kind === 'ServiceMonitor');
    expect(monitors).toHaveLength(3);
    for (const monitor of monitors) {
      const [endpoint] = (monitor.spec as { endpoints: Record<string, unknown>[] }).endpoints;
      expect(endpoint?.honorLabels).toBe(true);
      expect(endpoint).not.toHaveProperty('relabelings');
      expect(endpoint).not.toHaveProperty('metricRelabelings');
    }
    const configured = extended.filter((object) => object.kind === 'ServiceMonitor');
    expect(configured).toHaveLength(3);
    for (const monitor of configured) {
      expect((monitor.spec as { endpoints: unknown[] }).endpoints[0]).toMatchObject({
        honorLabels: false,
        relabelings: [
          { action: 'replace', sourceLabels: ['__meta_kubernetes_pod_node_name'], targetLabel: 'node' },
        ],
        metricRelabelings: [{ action: 'drop', sourceLabels: ['__name__'], regex: 'process_.*' }],
      });
    }
  });
});

describe('helm/modelgate labels and annotations', () => {
  it("refuses label and annotation keys that are the chart's own, instead of writing a key twice", () => {
    expect(
      templateFailure(
        onDefaults({ values: { commonLabels: { team: 'ml', 'app.kubernetes.io/part-of': 'x' } } }),
      ),
    ).toMatch(/commonLabels: app.kubernetes.io\/part-of is the chart's own \(a label every object carries\)/);
    expect(
      templateFailure(
        onDefaults({
          values: { metrics: { serviceMonitor: { enabled: true, labels: { 'helm.sh/chart': 'x' } } } },
        }),
      ),
    ).toMatch(/metrics.serviceMonitor.labels: helm.sh\/chart is the chart's own/);
    expect(
      templateFailure(onDefaults({ values: { worker: { podAnnotations: { 'checksum/env': 'x' } } } })),
    ).toMatch(/worker.podAnnotations: checksum\/env is the chart's own \(annotations that roll the pods/);
    const labelled = renderChart(onDefaults({ values: { commonLabels: { team: 'ml' } } }));
    expect(findObject(labelled, 'Deployment', '-gateway').metadata.labels?.team).toBe('ml');
  });
});

describe('helm/modelgate GPUs', () => {
  it('refuses more than one GPU per worker: a worker runs its models on one device', () => {
    expect(templateFailure(onDefaults({ values: { worker: { gpu: { count: 2 } } } }))).toMatch(
      /\/worker\/gpu\/count.*maximum: got 2, want 1/,
    );
    const production = renderChart({ files: ['ci/production-values.yaml'] });
    const worker = podSpecOf(findObject(production, 'Deployment', '-worker')).containers[0];
    expect(worker?.resources?.limits?.['nvidia.com/gpu']).toBe(1);
  });

  it('refuses a CUDA device id other than 0 when the pod has its one GPU', () => {
    expect(
      templateFailure(onDefaults({ values: { worker: { env: { WORKER_CUDA_DEVICE_ID: 1 } } } })),
    ).toMatch(/WORKER_CUDA_DEVICE_ID must be 0 \(or unset\) with worker.gpu.count 1/);
    const cpu = renderChart(
      onDefaults({ values: { worker: { gpu: { count: 0 }, env: { WORKER_CUDA_DEVICE_ID: 1 } } } }),
    );
    expect(findObject(cpu, 'Deployment', '-worker')).toBeDefined();
  });
});

describe('helm/modelgate images', () => {
  it('refuses to render without image.registry, naming the value, instead of pulling from docker.io/modelgate', () => {
    expect(templateFailure({})).toMatch(/image\.registry is required: .*--set image\.registry=/);
    expect(templateFailure({ values: { image: { registry: 'https://ghcr.io/acme' } } })).toMatch(
      /\/image\/registry/,
    );
  });

  it('prefixes every image of the release with image.registry', () => {
    const images = defaults.flatMap((object) => {
      if (!['Deployment', 'Job', 'Pod'].includes(object.kind)) return [];
      return podSpecOf(object).containers.map((container) => container.image);
    });
    expect(images.length).toBeGreaterThan(4);
    for (const image of images)
      expect(image).toMatch(/^registry\.example\.com\/ml\/modelgate\/[a-z-]+:0\.1\.0$/);
  });
});

describe('helm/modelgate/Chart.yaml', () => {
  it('carries the metadata a chart index shows, and the apps’ version as appVersion', () => {
    const chart = parse(readRepoFile('helm', 'modelgate', 'Chart.yaml')) as {
      apiVersion: string;
      appVersion: string;
      kubeVersion: string;
      keywords: string[];
      maintainers: { name: string }[];
      annotations: Record<string, string>;
    };
    const { license } = JSON.parse(readRepoFile('package.json')) as { license: string };
    expect(chart.apiVersion).toBe('v2');
    expect(chart.appVersion).toBe(MODELGATE_VERSION);
    expect(chart.kubeVersion).toMatch(/^>=1\.\d+/);
    expect(chart.keywords.length).toBeGreaterThan(3);
    expect(chart.maintainers[0]?.name).toBeTruthy();
    expect(chart.annotations['artifacthub.io/license']).toBe(license);
  });
});
