import { type K8sObject } from './helm.js';

/** The parts of a container spec the tests read. */
export interface ContainerSpec {
  name: string;
  image: string;
  command?: string[];
  env?: {
    name: string;
    value?: string;
    valueFrom?: {
      secretKeyRef?: { name: string; key: string; optional?: boolean };
      fieldRef?: { fieldPath: string };
    };
  }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  resources?: { limits?: Record<string, unknown>; requests?: Record<string, unknown> };
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[]; add?: string[] } };
  readinessProbe?: Record<string, unknown>;
  livenessProbe?: Record<string, unknown>;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  terminationMessagePolicy?: string;
}

/** The parts of a pod spec the tests read. */
export interface PodSpec {
  containers: ContainerSpec[];
  initContainers?: ContainerSpec[];
  volumes?: ({ name: string } & Record<string, unknown>)[];
  securityContext?: Record<string, unknown>;
  terminationGracePeriodSeconds?: number;
  nodeSelector?: Record<string, string>;
  tolerations?: unknown[];
  affinity?: unknown;
  automountServiceAccountToken?: boolean;
  restartPolicy?: string;
  priorityClassName?: string;
  topologySpreadConstraints?: Record<string, unknown>[];
}

/** Objects that run pods (Deployments and Jobs). */
export function workloads(objects: readonly K8sObject[]): K8sObject[] {
  return objects.filter((object) => object.kind === 'Deployment' || object.kind === 'Job');
}

/** The pod spec of a Pod, or the pod template spec of a Deployment or Job. */
export function podSpecOf(object: K8sObject): PodSpec {
  if (object.kind === 'Pod') return object.spec as PodSpec;
  const spec = object.spec as { template?: { spec?: PodSpec } } | undefined;
  if (spec?.template?.spec === undefined)
    throw new Error(`${object.kind} ${object.metadata.name} has no pod template`);
  return spec.template.spec;
}

/** The `app.kubernetes.io/component` label of an object. */
export function componentOf(object: K8sObject): string {
  const component = object.metadata.labels?.['app.kubernetes.io/component'];
  if (component === undefined)
    throw new Error(`${object.kind} ${object.metadata.name} has no component label`);
  return component;
}
