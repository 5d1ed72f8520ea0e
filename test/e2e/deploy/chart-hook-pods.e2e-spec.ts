// Where the chart's hook and test pods are scheduled and how they are labelled: the migration Job and
// the credentials check run the registry image before the release's pods change, so they go where the
// registry may go; the `helm test` pod runs the gateway image, so it goes where the gateway may go.
// Without that, on a cluster whose every node is tainted, the pre-install hooks stay Pending.
import { beforeAll, describe, expect, it } from 'vitest';
import { findObject, type K8sObject, onDefaults, renderChart } from './support/helm.js';
import { type PodSpec, podSpecOf } from './support/pod-spec.js';

const registryScheduling = {
  nodeSelector: { pool: 'control' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'control', effect: 'NoSchedule' }],
  affinity: {
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }],
      },
    },
  },
  priorityClassName: 'modelgate-control',
};
const gatewayScheduling = {
  nodeSelector: { pool: 'edge' },
  tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'edge', effect: 'NoSchedule' }],
  priorityClassName: 'modelgate-edge',
};

/** The pod's scheduling fields, absent ones left out. */
function schedulingOf(pod: PodSpec): Record<string, unknown> {
  const { nodeSelector, tolerations, affinity, priorityClassName } = pod;
  return Object.fromEntries(
    Object.entries({ nodeSelector, tolerations, affinity, priorityClassName }).filter(
      ([, value]) => value !== undefined,
    ),
  );
}

/** The hook or test Pod whose name ends with `suffix`. */
const podOf = (objects: readonly K8sObject[], suffix: string) => findObject(objects, 'Pod', suffix);

/** The labels of the pods a Job or Deployment creates. */
const templateLabelsOf = (object: K8sObject) =>
  (object.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;

describe('hook and test pods', () => {
  let defaults: K8sObject[];
  let scheduled: K8sObject[];

  beforeAll(() => {
    defaults = renderChart(onDefaults());
    scheduled = renderChart(
      onDefaults({
        values: {
          registry: {
            ...registryScheduling,
            topologySpreadConstraints: [
              { maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule' },
            ],
          },
          gateway: gatewayScheduling,
        },
      }),
    );
  });

  it("schedule the migration Job's pod as the registry's: nodeSelector, tolerations, affinity, priorityClassName", () => {
    const job = podSpecOf(findObject(scheduled, 'Job', '-migrations'));
    expect(schedulingOf(job)).toEqual(registryScheduling);
    // One pod has nothing to spread over.
    expect(job.topologySpreadConstraints).toBeUndefined();
    expect(schedulingOf(podSpecOf(findObject(defaults, 'Job', '-migrations')))).toEqual({});
  });

  it('schedule the credentials check, which runs the registry image, as the registry', () => {
    const check = podSpecOf(podOf(scheduled, '-credentials-check'));
    expect(schedulingOf(check)).toEqual(registryScheduling);
    expect(check.topologySpreadConstraints).toBeUndefined();
    expect(schedulingOf(podSpecOf(podOf(defaults, '-credentials-check')))).toEqual({});
  });

  it('schedule the `helm test` pod, which runs the gateway image, as the gateway', () => {
    expect(schedulingOf(podSpecOf(podOf(scheduled, '-test')))).toEqual(gatewayScheduling);
    expect(schedulingOf(podSpecOf(podOf(defaults, '-test')))).toEqual({});
  });

  it("label the migration Job's pods as the Deployments' pods are, commonLabels included", () => {
    const labelled = renderChart(onDefaults({ values: { commonLabels: { team: 'ml', tier: 'serving' } } }));
    const job = findObject(labelled, 'Job', '-migrations');
    const registry = findObject(labelled, 'Deployment', '-registry');
    expect(templateLabelsOf(job)).toEqual({
      ...templateLabelsOf(registry),
      'app.kubernetes.io/component': 'migrations',
    });
    expect(templateLabelsOf(job)).toMatchObject({ team: 'ml', tier: 'serving' });
    for (const suffix of ['-credentials-check', '-test'])
      expect(podOf(labelled, suffix).metadata.labels).toMatchObject({ team: 'ml', tier: 'serving' });
  });
});
