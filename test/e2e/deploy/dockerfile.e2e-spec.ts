import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  copyPaths,
  dockerIgnorePatterns,
  envNames,
  execForm,
  globToRegex,
  isDockerIgnored,
  parseDockerfile,
  type Stage,
} from './support/dockerfile.js';
import { readManifest, runtimeImports } from './support/package-imports.js';
import {
  APP_ENV_KEYS,
  type AppName,
  readRepoFile,
  repoPath,
  sourceOfBuiltFile,
  workspaceDirs,
} from './support/repo.js';

const dockerfile = parseDockerfile(readRepoFile('docker', 'Dockerfile'));
const ignorePatterns = dockerIgnorePatterns(readRepoFile('.dockerignore'));

/** Image targets, the workspace each one runs, and the apps whose config schemas its ENV must match. */
const TARGETS = {
  gateway: { workspace: 'apps/gateway', apps: ['gateway'] },
  'gateway-colocated': { workspace: 'apps/gateway', apps: ['gateway', 'worker'] },
  registry: { workspace: 'apps/registry', apps: ['registry'] },
  cli: { workspace: 'apps/cli', apps: [] },
  'worker-cpu': { workspace: 'apps/worker', apps: ['worker'] },
  'worker-gpu': { workspace: 'apps/worker', apps: ['worker'] },
} as const satisfies Record<string, { workspace: string; apps: readonly AppName[] }>;

/** Runtime-only variables an image may set besides its app's own. */
const RUNTIME_ENV = new Set(['NODE_ENV', 'NODE_OPTIONS', 'NVIDIA_DRIVER_CAPABILITIES']);

function stage(name: string): Stage {
  const found = dockerfile.stages.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`docker/Dockerfile has no stage ${name}`);
  return found;
}

/** A stage's instructions, including those it inherits from stages it is built FROM. */
function effectiveInstructions(target: Stage): Stage['instructions'] {
  const parent = dockerfile.stages.find((candidate) => candidate.name === target.base);
  return [...(parent ? effectiveInstructions(parent) : []), ...target.instructions];
}

/** Repository paths a COPY source (possibly a glob) matches. */
function matchingPaths(source: string): string[] {
  const normalized = source.replace(/^\.\/|\/+$/g, '');
  if (normalized === '.' || normalized === '') return ['.'];
  if (!/[*?[]/.test(normalized)) return existsSync(repoPath(normalized)) ? [normalized] : [];
  const regex = new RegExp(`^${globToRegex(normalized)}$`);
  return readdirSync(repoPath(), { recursive: true, encoding: 'utf8' })
    .map((entry) => entry.split(path.sep).join('/'))
    .filter((entry) => !entry.startsWith('node_modules/') && regex.test(entry));
}

/** Package names reachable from a workspace's production dependencies, through package-lock.json. */
function productionClosure(workspace: string): Set<string> {
  const lock = JSON.parse(readRepoFile('package-lock.json')) as {
    packages: Record<
      string,
      {
        dependencies?: Record<string, string>;
        optionalDependencies?: Record<string, string>;
        link?: boolean;
        resolved?: string;
      }
    >;
  };
  const seen = new Set<string>();
  const queue = Object.keys(lock.packages[workspace]?.dependencies ?? {});
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    if (seen.has(name)) continue;
    seen.add(name);
    let entry = lock.packages[`node_modules/${name}`];
    if (entry?.link && entry.resolved !== undefined) entry = lock.packages[entry.resolved];
    queue.push(...Object.keys(entry?.dependencies ?? {}), ...Object.keys(entry?.optionalDependencies ?? {}));
  }
  return seen;
}

describe('docker/Dockerfile', () => {
  it('copies only sources that exist in the repository and that .dockerignore does not exclude', () => {
    const problems: string[] = [];
    for (const { instructions } of dockerfile.stages) {
      for (const instruction of instructions) {
        if (
          (instruction.keyword !== 'COPY' && instruction.keyword !== 'ADD') ||
          instruction.flags.from !== undefined
        )
          continue;
        for (const source of copyPaths(instruction).sources) {
          const matches = matchingPaths(source);
          if (matches.length === 0) problems.push(`line ${instruction.line}: ${source} does not exist`);
          for (const match of matches) {
            if (match !== '.' && isDockerIgnored(ignorePatterns, match)) {
              problems.push(`line ${instruction.line}: ${match} is excluded by .dockerignore`);
            }
          }
        }
      }
    }
    expect(problems).toEqual([]);
  });

  it('copies from stages defined earlier, and bases stages on earlier stages or images pinned by digest', () => {
    const problems: string[] = [];
    const defined = new Set<string>();
    for (const current of dockerfile.stages) {
      for (const instruction of current.instructions) {
        const from = instruction.flags.from;
        if (from !== undefined && !defined.has(from))
          problems.push(`line ${instruction.line}: --from=${from} is no earlier stage`);
      }
      const base = current.base.replace(/\$\{(\w+)\}/g, (_, arg: string) => {
        const declared = dockerfile.globalArgs.find((instruction) => instruction.args.startsWith(`${arg}=`));
        return declared?.args.slice(arg.length + 1) ?? `<undeclared ${arg}>`;
      });
      if (
        base.includes('<undeclared') ||
        (!defined.has(base) && !/^[\w.-]+(\/[\w.-]+)*:[\w.-]+@sha256:[0-9a-f]{64}$/.test(base))
      ) {
        problems.push(
          `FROM ${current.base} is neither an earlier stage nor an image pinned by tag and digest`,
        );
      }
      if (current.name !== undefined) defined.add(current.name);
    }
    expect(problems).toEqual([]);
  });

  it('pins the BuildKit syntax frontend by digest too', () => {
    const [firstLine] = readRepoFile('docker', 'Dockerfile').split('\n');
    expect(firstLine).toMatch(/^# syntax=docker\/dockerfile:[\d.]+@sha256:[0-9a-f]{64}$/);
  });

  it('copies every workspace manifest before `npm ci`, so the lock file stays in sync', () => {
    const copied = new Set(
      stage('manifests')
        .instructions.filter((instruction) => instruction.keyword === 'COPY')
        .flatMap((instruction) => copyPaths(instruction).sources),
    );
    const expected = [
      'package.json',
      'package-lock.json',
      '.npmrc',
      ...workspaceDirs().map((dir) => `${dir}/package.json`),
    ];
    expect(expected.filter((file) => !copied.has(file))).toEqual([]);
  });

  it.each(Object.entries(TARGETS))(
    'builds the %s image with an exec-form node entrypoint compiled from a source file',
    (target, { workspace }) => {
      const entrypoints = stage(target).instructions.filter(
        (instruction) => instruction.keyword === 'ENTRYPOINT',
      );
      expect(entrypoints).toHaveLength(1);
      const [command, script, ...rest] = execForm(entrypoints[0] as Stage['instructions'][number]);
      expect(command).toBe('node');
      expect(script).toBe(`${workspace}/dist/main.js`);
      expect(rest).toEqual([]);
      expect(sourceOfBuiltFile(script ?? ''), `${script} has no source to compile from`).toBeDefined();
    },
  );

  it.each(Object.keys(TARGETS))('runs the %s image as a numeric non-root user', (target) => {
    const users = stage(target).instructions.filter((instruction) => instruction.keyword === 'USER');
    expect(users.at(-1)?.args).toMatch(/^[1-9]\d*:[1-9]\d*$/);
  });

  it.each(Object.entries(TARGETS))('sets only variables the %s image’s apps read', (target, { apps }) => {
    const names = effectiveInstructions(stage(target))
      .filter((instruction) => instruction.keyword === 'ENV')
      .flatMap(envNames);
    const allowed = new Set(apps.flatMap((app) => [...APP_ENV_KEYS[app]]));
    expect(names.filter((name) => !RUNTIME_ENV.has(name) && !allowed.has(name))).toEqual([]);
  });

  it.each(Object.entries(TARGETS))(
    'installs only the production dependencies of the %s workspace',
    (target, { workspace }) => {
      const { name } = readManifest(workspace);
      const copiesFrom = stage(target)
        .instructions.filter(
          (instruction) => instruction.keyword === 'COPY' && instruction.flags.from?.endsWith('-deps'),
        )
        .map((instruction) => instruction.flags.from ?? '');
      expect(copiesFrom).toHaveLength(1);
      const installs = effectiveInstructions(stage(copiesFrom[0] ?? ''))
        .filter((instruction) => instruction.keyword === 'RUN' && instruction.args.includes('npm ci'))
        .map((instruction) => instruction.args);
      expect(installs).toHaveLength(1);
      expect(installs[0]).toContain('--omit=dev');
      expect(installs[0]).toContain(`--workspace ${name}`);
    },
  );

  it('installs the worker app beside the gateway in the co-located image, whose embedded entry the gateway imports', () => {
    const installs = effectiveInstructions(stage('gateway-colocated-deps'))
      .filter((instruction) => instruction.keyword === 'RUN' && instruction.args.includes('npm ci'))
      .map((instruction) => instruction.args);
    expect(installs).toHaveLength(1);
    expect(installs[0]).toContain('--workspace @modelgate/worker');
    expect(installs[0]).toContain('prune-onnxruntime.sh');
    const exports = (readManifest('apps/worker') as { exports?: Record<string, unknown> }).exports ?? {};
    expect(Object.keys(exports)).toContain('./embedded');
    expect(readRepoFile('apps', 'gateway', 'src', 'main.ts')).toContain("'@modelgate/worker/embedded'");
    const envs = effectiveInstructions(stage('gateway-colocated'))
      .filter((instruction) => instruction.keyword === 'ENV')
      .map((instruction) => instruction.args)
      .join(' ');
    expect(envs).toMatch(/GATEWAY_LOCAL_WORKER=true/);
  });

  it('keeps onnxruntime-node out of the gateway image: nothing the gateway depends on needs it', () => {
    const closure = productionClosure('apps/gateway');
    expect(closure.size).toBeGreaterThan(0);
    expect([...closure].filter((name) => name.startsWith('onnxruntime'))).toEqual([]);
  });

  it.each(Object.entries(TARGETS))(
    'declares every package the %s image’s code imports (the image installs nothing else)',
    (_target, { workspace }) => {
      const undeclared: string[] = [];
      const visited = new Set<string>();
      const check = (dir: string): void => {
        if (visited.has(dir)) return;
        visited.add(dir);
        const manifest = readManifest(dir);
        const declared = new Set(Object.keys(manifest.dependencies ?? {}));
        for (const imported of runtimeImports(dir)) {
          if (imported === manifest.name) continue;
          if (!declared.has(imported)) undeclared.push(`${dir} imports ${imported} without declaring it`);
        }
        for (const dependency of declared) {
          if (dependency.startsWith('@modelgate/')) check(`libs/${dependency.slice('@modelgate/'.length)}`);
        }
      };
      check(workspace);
      expect(undeclared).toEqual([]);
    },
  );

  it('builds the GPU worker on a CUDA 12 + cuDNN runtime with TensorRT and onnxruntime-node’s CUDA providers', () => {
    const cudaImage = dockerfile.globalArgs.find((instruction) =>
      instruction.args.startsWith('CUDA_IMAGE='),
    )?.args;
    expect(cudaImage).toMatch(
      /^CUDA_IMAGE=nvidia\/cuda:12\.[\d.]+-cudnn-runtime-ubuntu\d+\.\d+@sha256:[0-9a-f]{64}$/,
    );
    expect(stage('worker-gpu').base).toBe('${CUDA_IMAGE}');
    const gpuRuns = stage('worker-gpu').instructions.filter((instruction) => instruction.keyword === 'RUN');
    expect(
      gpuRuns.some((run) => /libnvinfer10=/.test(run.args) && /libnvinfer-plugin10=/.test(run.args)),
    ).toBe(true);
    const providerInstall = stage('worker-gpu-deps').instructions.find(
      (instruction) => instruction.keyword === 'RUN',
    );
    // The package onnxruntime-node's install script would fetch, verified before it is unpacked
    // (onnxruntime-image.e2e-spec.ts runs the guard that refuses a build without the checksum).
    const args = providerInstall?.args ?? '';
    const download = args.indexOf('https://api.nuget.org/v3-flatcontainer/$package/$version/');
    const verify = args.indexOf('sha256sum -c -');
    const unpack = args.indexOf('unzip ');
    expect(download).toBeGreaterThan(0);
    expect(verify).toBeGreaterThan(download);
    expect(unpack).toBeGreaterThan(verify);
    for (const library of ['cuda', 'shared', 'tensorrt'])
      expect(args).toContain(`libonnxruntime_providers_${library}.so`);
    expect(args).not.toContain('onnxruntime-node/script/install');
    expect(stage('worker-gpu-deps').base).toBe('worker-deps');
  });
});
