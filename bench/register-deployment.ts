/** Registers a bench deployment's model versions and endpoint through the registry's admin API. */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type AdminClient } from '@modelgate/admin-client';
import { ensureFixture } from '@modelgate/fixtures';
import { sha256Of, waitFor, writeTokenizerBundle } from '@modelgate/testing';
import { type Deployment } from './control-plane.js';

/**
 * Registers version `version` of `deployment`'s model through the admin API and waits until its
 * preparation has made it READY (rejects when it ends FAILED).
 */
export async function registerModelVersion(
  admin: AdminClient,
  deployment: Deployment,
  dir: string,
  version = 1,
): Promise<void> {
  const fixtureDir = await ensureFixture(deployment.fixture);
  const onnx = join(fixtureDir, 'onnx', 'model.onnx');
  await mkdir(dir, { recursive: true });
  const bundle = await writeTokenizerBundle(fixtureDir, dir);
  await admin.registerModel({
    name: deployment.model,
    version,
    task: deployment.task ?? 'text-classification',
    workerGroup: deployment.workerGroup,
    artifact: { uri: pathToFileURL(onnx).href, sha256: await sha256Of(onnx) },
    tokenizer: { uri: pathToFileURL(bundle.path).href, sha256: bundle.sha256 },
    batching: deployment.batching,
    runtime: {
      executionProviders: ['cpu'],
      instances: deployment.instances,
      intraOpThreads: deployment.intraOpThreads,
    },
  });
  let status = '';
  await waitFor(
    async () => {
      const model = await admin.getModel({ name: deployment.model, version: String(version) });
      status = `${model.status}${model.statusReason ? ` (${model.statusReason})` : ''}`;
      return model.status === 'READY' || model.status === 'FAILED';
    },
    { timeoutMs: 120_000, intervalMs: 200, describe: () => `model status ${status}` },
  );
  if (!status.startsWith('READY'))
    throw new Error(`model preparation of ${deployment.model}:${version} ended ${status}`);
}

/** Registers `deployment`'s model (waiting for READY) and, when it has one, its endpoint. */
export async function registerDeployment(
  registry: { admin: AdminClient },
  deployment: Deployment,
  dir: string,
): Promise<void> {
  await registerModelVersion(registry.admin, deployment, dir);
  if (deployment.endpoint) {
    await registry.admin.createEndpoint({
      name: deployment.endpoint,
      task: deployment.task ?? 'text-classification',
      model: `${deployment.model}:1`,
    });
  }
}
