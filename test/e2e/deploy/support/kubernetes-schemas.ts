import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';
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
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

/** Custom resources kubernetes-models has no schema for, checked by `validateServiceMonitor`. */
const CUSTOM_RESOURCES = new Set(['monitoring.coreos.com/v1/ServiceMonitor']);

/** Validates a rendered object against the Kubernetes OpenAPI schema of its kind; throws on errors. */
export function validateKubernetesObject(object: K8sObject): void {
  const key = `${object.apiVersion}/${object.kind}`;
  if (CUSTOM_RESOURCES.has(key)) {
    validateServiceMonitor(object);
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
