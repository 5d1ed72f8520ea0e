// What the worker images do with onnxruntime-node, run here without Docker: the script that strips
// other platforms' binaries, on a copy of the npm package's layout, and the guard of the GPU stage
// that refuses to build without the checksum of the CUDA providers' package.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDockerfile, type Stage } from './support/dockerfile.js';
import { readRepoFile, repoPath } from './support/repo.js';

const dockerfile = parseDockerfile(readRepoFile('docker', 'Dockerfile'));
const PRUNE_SCRIPT = 'docker/prune-onnxruntime.sh';

function stage(name: string): Stage {
  const found = dockerfile.stages.find((candidate) => candidate.name === name);
  if (found === undefined) throw new Error(`docker/Dockerfile has no stage ${name}`);
  return found;
}

/** Files under `dir`, relative, sorted. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
    .sort();
}

/**
 * A node_modules directory holding an onnxruntime-node whose bin/ has the installed package's
 * layout (every platform directory and file name, empty files), plus a file outside bin/.
 */
function packageCopy(): { modules: string; binaries: string[] } {
  const require = createRequire(import.meta.url);
  const installedBin = path.join(path.dirname(require.resolve('onnxruntime-node/package.json')), 'bin');
  const binaries = filesUnder(installedBin);
  const modules = path.join(mkdtempSync(path.join(tmpdir(), 'modelgate-ort-')), 'node_modules');
  for (const file of [...binaries.map((name) => path.join('bin', name)), 'package.json']) {
    const target = path.join(modules, 'onnxruntime-node', file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, '');
  }
  return { modules, binaries };
}

function prune(modules: string, targetArch: string): { status: number; output: string } {
  const result = spawnSync('sh', [repoPath(PRUNE_SCRIPT), modules, targetArch], { encoding: 'utf8' });
  return { status: result.status ?? -1, output: result.stdout + result.stderr };
}

/** Runs the first RUN of the worker-gpu-deps stage with `sh` and the build args in `env`, in a scratch directory. */
function runGpuProviderStep(env: Record<string, string>): { status: number; output: string } {
  const run = stage('worker-gpu-deps').instructions.find((instruction) => instruction.keyword === 'RUN');
  const result = spawnSync('sh', ['-c', run?.args ?? 'exit 99'], {
    encoding: 'utf8',
    cwd: mkdtempSync(path.join(tmpdir(), 'modelgate-gpu-step-')),
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return { status: result.status ?? -1, output: result.stdout + result.stderr };
}

describe('docker/prune-onnxruntime.sh', () => {
  it('runs on the worker dependencies of every worker image, in the same layer as their install', () => {
    const install = stage('worker-deps').instructions.find((instruction) => instruction.keyword === 'RUN');
    expect(install?.args).toMatch(
      /npm ci .*&& sh \S+prune-onnxruntime\.sh node_modules "\$\{TARGETARCH:-amd64\}"/,
    );
    expect(stage('worker-deps').instructions.map((instruction) => instruction.keyword)).toContain('ARG');
    expect(stage('worker-gpu-deps').base).toBe('worker-deps');
  });

  it.each([
    ['amd64', 'x64'],
    ['arm64', 'arm64'],
  ])(
    'keeps only linux/%s’s binaries (onnxruntime’s %s) and the rest of the package',
    (targetArch, ortArch) => {
      const { modules, binaries } = packageCopy();
      // The installed package really ships other platforms: the point of pruning.
      expect(binaries.some((file) => /^napi-v\d+\/(darwin|win32)\//.test(file))).toBe(true);
      const result = prune(modules, targetArch);
      expect(result.output).toContain(`kept ${modules}/onnxruntime-node/bin/napi-v6/linux/${ortArch}`);
      expect(result.status).toBe(0);
      const expected = binaries.filter((file) => file.startsWith(`napi-v6/linux/${ortArch}/`));
      expect(expected).toContain(`napi-v6/linux/${ortArch}/onnxruntime_binding.node`);
      expect(filesUnder(path.join(modules, 'onnxruntime-node', 'bin'))).toEqual(expected);
      expect(readdirSync(path.join(modules, 'onnxruntime-node', 'bin', 'napi-v6'))).toEqual(['linux']);
      expect(filesUnder(path.join(modules, 'onnxruntime-node'))).toContain('package.json');
    },
  );

  it('refuses an architecture onnxruntime-node has no Linux binaries for, and a missing package', () => {
    const { modules } = packageCopy();
    const unknown = prune(modules, 's390x');
    expect(unknown.status).toBe(1);
    expect(unknown.output).toContain('no Linux binaries for TARGETARCH=s390x');
    const missing = prune(path.join(tmpdir(), 'nowhere', 'node_modules'), 'amd64');
    expect(missing.status).toBe(1);
    expect(missing.output).toContain('is onnxruntime-node installed?');
  });
});

describe('the GPU worker’s CUDA provider download', () => {
  it('is refused before anything is fetched when ONNXRUNTIME_GPU_NUPKG_SHA256 is not given', () => {
    const args = stage('worker-gpu-deps').instructions.filter((instruction) => instruction.keyword === 'ARG');
    expect(args.map((instruction) => instruction.args)).toContain('ONNXRUNTIME_GPU_NUPKG_SHA256=');
    // Docker sets a declared ARG to its default ("") when no --build-arg gives it.
    const result = runGpuProviderStep({ ONNXRUNTIME_GPU_NUPKG_SHA256: '' });
    expect(result.status).toBe(1);
    expect(result.output).toContain('worker-gpu needs --build-arg ONNXRUNTIME_GPU_NUPKG_SHA256=');
    expect(result.output).not.toMatch(/apt-get|curl/);
    expect(runGpuProviderStep({}).output).toContain('worker-gpu needs --build-arg');
  });

  it('documents the download URL of the installed onnxruntime-node’s version, where the checksum is asked for', () => {
    const require = createRequire(import.meta.url);
    const { version } = require('onnxruntime-node/package.json') as { version: string };
    const url = `https://api.nuget.org/v3-flatcontainer/microsoft.ml.onnxruntime.gpu.linux/${version}/microsoft.ml.onnxruntime.gpu.linux.${version}.nupkg`;
    expect(readRepoFile('docker', 'Dockerfile')).toContain(url);
    expect(readRepoFile('deploy.env.example')).toContain(url);
  });

  it('is refused when the checksum is not a sha256, or the target is not amd64', () => {
    const malformed = runGpuProviderStep({ ONNXRUNTIME_GPU_NUPKG_SHA256: 'ABC123' });
    expect(malformed.status).toBe(1);
    expect(malformed.output).toContain('must be 64 lowercase hex digits (a sha256), got: ABC123');
    const arm = runGpuProviderStep({ ONNXRUNTIME_GPU_NUPKG_SHA256: 'a'.repeat(64), TARGETARCH: 'arm64' });
    expect(arm.status).toBe(1);
    expect(arm.output).toContain('worker-gpu is linux/amd64 only');
  });
});
