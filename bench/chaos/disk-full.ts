/**
 * Drill `disk-full` (issue 45, drill 5): the registry's artifact cache (REGISTRY_CACHE_DIR, where
 * model preparation writes every artifact it fetches) runs out of space while a second model is
 * prepared, under the load on the first.
 *
 * Fault: the cache moves onto a tmpfs of its own (its files copied over, so the serving model's
 * artifacts are there), sized a few MiB short of what the new model's .onnx needs; `diskfull:1`
 * (fixture tiny-bert-sst2) is registered from a file:// URI, so preparation copies it into the
 * cache. Expected: FAILED at once, the reason saying "no space left on device" and naming the
 * cache, no partial file left behind, and every request to the serving model answered.
 * Repair (after --down-seconds): the tmpfs grows (`mount -o remount,size=…`). Expected: the model
 * becomes READY by itself (its preparation keeps trying until space returns), the workers load it,
 * and an endpoint on it answers 200, no one registering it again. The tmpfs is unmounted after the
 * drill, and the cache is the on-disk directory again.
 *
 * It needs root (mount); `npm run chaos` refuses a run that includes it otherwise (`diskFullRefusal`).
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, rm, stat, statfs } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { ensureFixture } from '@modelgate/fixtures';
import { sha256Of, waitFor, writeTokenizerBundle } from '@modelgate/testing';
import { type ChaosStack } from './chaos-stack.js';

const run = promisify(execFile);

/** The model the drill prepares while the cache is full, and its endpoint. */
const MODEL = { name: 'diskfull', version: '1', fixture: 'tiny-bert-sst2', endpoint: 'diskfull' } as const;
const MODEL_ID = `${MODEL.name}:${MODEL.version}`;
const MIB = 1024 ** 2;
/** How far short of the new model's .onnx the shrunk cache's free space falls. */
const SHORT_BY_BYTES = 4 * MIB;
/** Room the grown cache has beyond the new model's files. */
const GROWN_SPARE_BYTES = 64 * MIB;
const PAGE_BYTES = 4096;
/** The tmpfs's size while the cache's files are copied onto it (a cap: tmpfs holds only what is written). */
const COPY_ROOM_BYTES = 2048 * MIB;
const STATUS_POLL_MS = 100;

/** What the drill saw, for the report: sizes in bytes, times in seconds. */
export interface DiskFullFindings {
  cacheDir: string;
  modelBytes: number;
  /** The tmpfs while short: its size, and its free bytes when the model was registered. */
  shrunk?: { sizeBytes: number; freeBytes: number };
  grown?: { sizeBytes: number; freeBytes: number };
  /** The first FAILED reason, verbatim, and how long after registration it showed. */
  failedReason?: string;
  failedAfterRegisterS?: number;
  /** Files left in the cache's tmp/ and the model's artifact present, checked while FAILED. */
  partialFilesWhileFailed?: string[];
  artifactCachedWhileFailed?: boolean;
  /** From the space returning to READY in the registry, to every worker READY, to the first 200. */
  readyAfterSpaceS?: number;
  workersReadyAfterSpaceS?: number;
  servingAfterSpaceS?: number;
  /** Each distinct (status, reason) the registry showed, seconds after registration. */
  statuses: { atS: number; status: string; reason: string | null }[];
}

/** Why drill disk-full cannot run here, or undefined when it can. */
export function diskFullRefusal(): string | undefined {
  if (process.getuid?.() === 0) return undefined;
  return "drill disk-full needs root: it mounts a tmpfs over the registry's artifact cache (mount -t tmpfs)";
}

async function mountCommand(...args: string[]): Promise<void> {
  try {
    await run('mount', args);
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`mount ${args.join(' ')} failed: ${stderr || String(error)}`, { cause: error });
  }
}

async function space(dir: string): Promise<{ usedBytes: number; freeBytes: number; sizeBytes: number }> {
  const info = await statfs(dir);
  return {
    usedBytes: (info.blocks - info.bfree) * info.bsize,
    freeBytes: info.bavail * info.bsize,
    sizeBytes: info.blocks * info.bsize,
  };
}

const pages = (bytes: number) => Math.ceil(bytes / PAGE_BYTES) * PAGE_BYTES;

/** The drill's steps; one instance per run (it holds the mount and what it saw). */
export class DiskFullDrill {
  #cacheDir = '';
  #mounted = false;
  #stack: ChaosStack | undefined;
  #registeredAtMs = 0;
  #poll: Promise<void> | undefined;
  #polling = false;
  #findings: DiskFullFindings = { cacheDir: '', modelBytes: 0, statuses: [] };

  /** What it saw so far. */
  get findings(): DiskFullFindings {
    return this.#findings;
  }

  /** Shrinks the cache onto a tmpfs, registers the model and waits for it to be FAILED for want of space. */
  async inject(stack: ChaosStack): Promise<void> {
    const refusal = diskFullRefusal();
    if (refusal !== undefined) throw new Error(refusal);
    const cacheDir = stack.registry.cacheDir;
    this.#cacheDir = cacheDir;
    this.#stack = stack;
    const fixtureDir = await ensureFixture(MODEL.fixture);
    const onnx = join(fixtureDir, 'onnx', 'model.onnx');
    const modelBytes = (await stat(onnx)).size;
    this.#findings = { cacheDir, modelBytes, statuses: [] };
    const bundleDir = join(stack.registry.dir, 'disk-full');
    await mkdir(bundleDir, { recursive: true });
    const bundle = await writeTokenizerBundle(fixtureDir, bundleDir);

    // The cache's files onto a tmpfs mounted over it: copied out, mounted, copied back.
    const saved = await mkdtemp(join(dirname(cacheDir), 'registry-cache-saved-'));
    await cp(cacheDir, saved, { recursive: true });
    await mountCommand('-t', 'tmpfs', '-o', `size=${COPY_ROOM_BYTES}`, 'tmpfs', cacheDir);
    this.#mounted = true;
    await cp(saved, cacheDir, { recursive: true });
    await rm(saved, { recursive: true, force: true });
    const { usedBytes } = await space(cacheDir);
    const shortSize = pages(usedBytes + modelBytes - SHORT_BY_BYTES);
    await mountCommand('-o', `remount,size=${shortSize}`, cacheDir);
    const shrunk = await space(cacheDir);
    this.#findings.shrunk = { sizeBytes: shrunk.sizeBytes, freeBytes: shrunk.freeBytes };

    this.#registeredAtMs = Date.now();
    this.#startPolling(stack);
    await stack.registry.admin.registerModel({
      name: MODEL.name,
      version: Number(MODEL.version),
      task: 'text-classification',
      workerGroup: 'default',
      artifact: { uri: pathToFileURL(onnx).href, sha256: await sha256Of(onnx) },
      tokenizer: { uri: pathToFileURL(bundle.path).href, sha256: bundle.sha256 },
      runtime: { executionProviders: ['cpu'], instances: 1, intraOpThreads: 1 },
    });
    await waitFor(() => this.#findings.statuses.some((s) => s.status === 'FAILED' || s.status === 'READY'), {
      timeoutMs: 60_000,
      intervalMs: STATUS_POLL_MS,
      describe: () => `${MODEL_ID} FAILED (statuses: ${JSON.stringify(this.#findings.statuses)})`,
    });
    const failed = this.#findings.statuses.find((s) => s.status === 'FAILED');
    if (failed === undefined) throw new Error(`${MODEL_ID} became READY in a cache too small for it`);
    this.#findings.failedReason = failed.reason ?? '';
    this.#findings.failedAfterRegisterS = failed.atS;
    const tmp = await readdir(join(cacheDir, 'tmp')).catch(() => []);
    this.#findings.partialFilesWhileFailed = tmp;
    const artifactSha = await sha256Of(onnx);
    this.#findings.artifactCachedWhileFailed = await stat(join(cacheDir, 'sha256', artifactSha)).then(
      () => true,
      () => false,
    );
    const problems = [
      ...(failed.reason?.includes('no space left on device')
        ? []
        : ['does not say "no space left on device"']),
      ...(failed.reason?.includes(cacheDir) ? [] : [`does not name the cache ${cacheDir}`]),
      ...(/\n\s+at /.test(failed.reason ?? '') ? ['holds a stack trace'] : []),
      ...(tmp.length === 0 ? [] : [`partial files left in tmp/: ${tmp.join(', ')}`]),
      ...(this.#findings.artifactCachedWhileFailed ? ['a half-written artifact is in the cache'] : []),
    ];
    if (problems.length > 0) throw new Error(`the FAILED reason of ${MODEL_ID}: ${problems.join('; ')}`);
  }

  /** Grows the tmpfs, then waits for READY, every worker READY and an answered request, timing each. */
  async repair(stack: ChaosStack): Promise<void> {
    const { usedBytes } = await space(this.#cacheDir);
    await mountCommand(
      '-o',
      `remount,size=${pages(usedBytes + this.#findings.modelBytes + GROWN_SPARE_BYTES)}`,
      this.#cacheDir,
    );
    const spaceAtMs = Date.now();
    const grown = await space(this.#cacheDir);
    this.#findings.grown = { sizeBytes: grown.sizeBytes, freeBytes: grown.freeBytes };
    const since = () => Math.round(Date.now() - spaceAtMs) / 1000;
    await waitFor(() => this.#findings.statuses.at(-1)?.status === 'READY', {
      timeoutMs: 120_000,
      intervalMs: STATUS_POLL_MS,
      describe: () =>
        `${MODEL_ID} READY after space returned (statuses: ${JSON.stringify(this.#findings.statuses.slice(-5))})`,
    });
    this.#findings.readyAfterSpaceS = since();
    await this.#stopPolling();
    await waitFor(
      async () => {
        const workers = (await stack.registry.admin.status()).nodes.filter((node) => node.role === 'worker');
        return workers.length > 0 && workers.every((node) => node.models[MODEL_ID] === 'READY');
      },
      {
        timeoutMs: 120_000,
        intervalMs: STATUS_POLL_MS,
        describe: () => `every worker with ${MODEL_ID} READY`,
      },
    );
    this.#findings.workersReadyAfterSpaceS = since();
    await stack.registry.admin.createEndpoint({
      name: MODEL.endpoint,
      task: 'text-classification',
      model: MODEL_ID,
    });
    const gateway = stack.gatewayUrls[0]!;
    await waitFor(
      async () => {
        const answer = await fetch(`${gateway}/serve/${MODEL.endpoint}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text: 'the cache had room again' }),
          signal: AbortSignal.timeout(5000),
        });
        return answer.status === 200;
      },
      {
        timeoutMs: 60_000,
        intervalMs: STATUS_POLL_MS,
        describe: () => `POST /serve/${MODEL.endpoint} answered 200`,
      },
    );
    this.#findings.servingAfterSpaceS = since();
  }

  /**
   * Stops watching, removes the endpoint and the model (the workers unload it: the fleet is as it
   * was) and unmounts the tmpfs (the on-disk cache directory shows again).
   */
  async cleanup(): Promise<void> {
    await this.#stopPolling();
    const admin = this.#stack?.registry.admin;
    if (admin !== undefined) {
      if ((await admin.findEndpoint(MODEL.endpoint)) !== undefined)
        await admin.removeEndpoint(MODEL.endpoint);
      const registered = await admin.listModels(MODEL.name);
      if (registered.length > 0) await admin.removeModel({ name: MODEL.name, version: MODEL.version });
    }
    if (!this.#mounted) return;
    await run('umount', [this.#cacheDir]).catch((error: unknown) => {
      throw new Error(`umount ${this.#cacheDir} failed: ${String(error)}`, { cause: error });
    });
    this.#mounted = false;
  }

  /** Records each distinct (status, reason) of the model, as `modelgate model get` would show it. */
  #startPolling(stack: ChaosStack): void {
    this.#polling = true;
    const statuses = this.#findings.statuses;
    this.#poll = (async () => {
      while (this.#polling) {
        const model = await stack.registry.admin
          .getModel({ name: MODEL.name, version: MODEL.version })
          .catch(() => undefined);
        const last = statuses.at(-1);
        if (model && (last?.status !== model.status || last.reason !== (model.statusReason ?? null))) {
          statuses.push({
            atS: Math.round(Date.now() - this.#registeredAtMs) / 1000,
            status: model.status,
            reason: model.statusReason ?? null,
          });
        }
        await new Promise((resolve) => setTimeout(resolve, STATUS_POLL_MS));
      }
    })();
  }

  async #stopPolling(): Promise<void> {
    this.#polling = false;
    await this.#poll;
  }
}

const mib = (bytes: number | undefined) => (bytes === undefined ? '–' : `${(bytes / MIB).toFixed(1)} MiB`);
const secs = (s: number | undefined) => (s === undefined ? '–' : `${s.toFixed(2)} s`);

/** The findings as the report's lines (markdown). */
export function renderDiskFullFindings(findings: DiskFullFindings): string[] {
  const partial = findings.partialFilesWhileFailed;
  return [
    `Cache: REGISTRY_CACHE_DIR \`${findings.cacheDir}\` on a tmpfs of ${mib(findings.shrunk?.sizeBytes)} ` +
      `(${mib(findings.shrunk?.freeBytes)} free) for \`${MODEL_ID}\`, whose .onnx is ${mib(findings.modelBytes)} ` +
      `(${findings.modelBytes} bytes).`,
    '',
    `FAILED ${secs(findings.failedAfterRegisterS)} after registration; the reason, verbatim:`,
    '',
    `> ${findings.failedReason ?? '(never FAILED)'}`,
    '',
    `While FAILED: ${partial === undefined ? '–' : `${partial.length} file(s) in the cache's tmp/`}; ` +
      `the artifact ${findings.artifactCachedWhileFailed ? '**was**' : 'was not'} in the cache.`,
    `Space returned (tmpfs grown to ${mib(findings.grown?.sizeBytes)}, ${mib(findings.grown?.freeBytes)} free): ` +
      `READY in the registry after ${secs(findings.readyAfterSpaceS)}, on every worker after ` +
      `${secs(findings.workersReadyAfterSpaceS)}, \`POST /serve/${MODEL.endpoint}\` answered 200 after ` +
      `${secs(findings.servingAfterSpaceS)} (the endpoint created once READY); no one registered the model again.`,
    '',
    'The model as the registry showed it (seconds after registration):',
    '',
    '| at | status | reason |',
    '| ---: | --- | --- |',
    ...findings.statuses.map(
      (s) => `| ${s.atS.toFixed(1)} s | ${s.status} | ${(s.reason ?? '').replaceAll('|', '\\|')} |`,
    ),
  ];
}
