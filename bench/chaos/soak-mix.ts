/**
 * The soak's traffic mix (issue 45, drill 4): beside the chaos fleet's sentiment endpoint, a
 * question-answering, a text-generation and an image-classification model, each with its own
 * endpoint, all in the chaos deployment's worker group so both workers serve every kind.
 */
import { type Deployment } from '../control-plane.js';
import { DEPLOYMENT } from './chaos-stack.js';

/** The kinds of request the soak sends. */
export const SOAK_KINDS = ['classification', 'question-answering', 'generation', 'image'] as const;

/** One of SOAK_KINDS. */
export type SoakKind = (typeof SOAK_KINDS)[number];

const shared = {
  workerGroup: DEPLOYMENT.workerGroup,
  batching: {},
  intraOpThreads: DEPLOYMENT.intraOpThreads,
  instances: DEPLOYMENT.instances,
};

/** The image model: the one whose versions the soak replaces (new version in, old one removed). */
export const SOAK_IMAGE: Deployment & { endpoint: string } = {
  ...shared,
  fixture: 'tiny-vit',
  model: 'vit',
  endpoint: 'classify-image',
  task: 'image-classification',
};

/** The QA endpoint: the one whose settings the soak changes. */
export const SOAK_QA: Deployment & { endpoint: string } = {
  ...shared,
  fixture: 'tiny-bert-squad',
  model: 'squad',
  endpoint: 'qa',
  task: 'question-answering',
};

/** The models and endpoints the soak adds to the chaos fleet. */
export const SOAK_DEPLOYMENTS: readonly Deployment[] = [
  SOAK_QA,
  { ...shared, fixture: 'tiny-gpt2', model: 'gpt2', endpoint: 'generate', task: 'text-generation' },
  SOAK_IMAGE,
];

/** Where each kind is sent and by how many closed-loop clients. */
export const SOAK_TRAFFIC: Readonly<Record<SoakKind, { path: string; clients: number }>> = {
  classification: { path: `/serve/${DEPLOYMENT.endpoint}`, clients: 8 },
  'question-answering': { path: `/serve/${SOAK_QA.endpoint}`, clients: 2 },
  // Every other generation request streams (SSE).
  generation: { path: '/serve/generate', clients: 2 },
  image: { path: `/serve/${SOAK_IMAGE.endpoint}`, clients: 2 },
};

/** New tokens per generation request. */
export const SOAK_NEW_TOKENS = 16;
