import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Pod, Secret, Service } from 'kubernetes-models/v1';
import { type K8sObject } from './helm.js';

/** A kubernetes-models class: built from a manifest, `validate()` throws on schema violations. */
type ModelClass = new (data: never) => { validate(): void };

/**
 * The kinds the chart may render, by `apiVersion/kind`. A kind missing here fails the test, so
 * a new template cannot skip validation. (kubernetes-models checks types, required fields and
 * formats, but ignores unknown fields: values.schema.json stops typos before they get here.)
 */
const MODELS: Readonly<Record<string, ModelClass>> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Pod': Pod,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

/** Custom resources kubernetes-models has no schema for, with the checks of the fields they need. */
const CUSTOM_RESOURCES: Readonly<Record<string, (object: K8sObject) => void>> = {
  'monitoring.coreos.com/v1/ServiceMonitor': validateServiceMonitor,
  'monitoring.coreos.com/v1/PrometheusRule': validatePrometheusRule,
};

/** Validates a rendered object against the Kubernetes OpenAPI schema of its kind; throws on errors. */
export function validateKubernetesObject(object: K8sObject): void {
  const key = `${object.apiVersion}/${object.kind}`;
  const custom = CUSTOM_RESOURCES[key];
  if (custom !== undefined) {
    custom(object);
    return;
  }
  const Model = MODELS[key];
  if (Model === undefined)
    throw new Error(`no Kubernetes schema registered for ${key} (${object.metadata.name})`);
  try {
    new Model(object as never).validate();
  } catch (error) {
    throw new Error(
      `${key} ${object.metadata.name}: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
}

/** The fields of a ServiceMonitor the Prometheus Operator needs to select and scrape a Service. */
function validateServiceMonitor(object: K8sObject): void {
  const spec = object.spec as
    | {
        selector?: { matchLabels?: Record<string, string> };
        endpoints?: { port?: unknown; path?: unknown }[];
      }
    | undefined;
  const problems: string[] = [];
  if (Object.keys(spec?.selector?.matchLabels ?? {}).length === 0)
    problems.push('spec.selector.matchLabels is empty');
  if (!spec?.endpoints?.length) problems.push('spec.endpoints is empty');
  for (const [i, endpoint] of (spec?.endpoints ?? []).entries()) {
    if (typeof endpoint.port !== 'string' || endpoint.port === '')
      problems.push(`spec.endpoints[${i}].port must name a Service port`);
    if (typeof endpoint.path !== 'string' || !endpoint.path.startsWith('/'))
      problems.push(`spec.endpoints[${i}].path must be a path`);
  }
  if (problems.length > 0) throw new Error(`ServiceMonitor ${object.metadata.name}: ${problems.join('; ')}`);
}

/**
 * The fields of a PrometheusRule the Operator needs: named groups of rules, each an alert with an
 * expression. (The expressions themselves are checked by promtool in prometheus-rules.e2e-spec.ts.)
 */
function validatePrometheusRule(object: K8sObject): void {
  const spec = object.spec as {
    groups?: { name?: unknown; rules?: { alert?: unknown; expr?: unknown }[] }[];
  };
  const problems: string[] = [];
  if (!spec.groups?.length) problems.push('spec.groups is empty');
  for (const [i, group] of (spec.groups ?? []).entries()) {
    if (typeof group.name !== 'string' || group.name === '')
      problems.push(`spec.groups[${i}].name is missing`);
    if (!group.rules?.length) problems.push(`spec.groups[${i}].rules is empty`);
    for (const [j, rule] of (group.rules ?? []).entries()) {
      if (typeof rule.alert !== 'string' || typeof rule.expr !== 'string')
        problems.push(`spec.groups[${i}].rules[${j}] needs an alert name and an expr`);
    }
  }
  if (problems.length > 0) throw new Error(`PrometheusRule ${object.metadata.name}: ${problems.join('; ')}`);
}
