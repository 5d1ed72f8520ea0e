// The registry's schema history, oldest first. `npm run migrate` (apps/registry) loads this
// file's compiled form, migrations/dist/index.js; add each new migration here.
import { type MigrationInterface } from 'typeorm';
import { InitialSchema1763683200000 } from './1763683200000-initial-schema.js';
import { ModelVersionPolicies1795348800000 } from './1795348800000-model-version-policies.js';
import { ModelSourcesAndExternalData1795352400000 } from './1795352400000-model-sources-and-external-data.js';
import { RolloutProgress1795356000000 } from './1795356000000-rollout-progress.js';
import { TextTasks1795359600000 } from './1795359600000-text-tasks.js';
import { TextGenerationTask1795363200000 } from './1795363200000-text-generation-task.js';
import { ImageClassificationTask1795366800000 } from './1795366800000-image-classification-task.js';
import { ImageToTextTask1795370400000 } from './1795370400000-image-to-text-task.js';
import { OptionsThatNeverApplied1795374000000 } from './1795374000000-options-that-never-applied.js';
import { DecodersWithoutPositionIds1795377600000 } from './1795377600000-decoders-without-position-ids.js';
import { InertQueueDelays1795381200000 } from './1795381200000-inert-queue-delays.js';
import { EndpointGenerationDefaults1795384800000 } from './1795384800000-endpoint-generation-defaults.js';
import { ImplicitMaxBatchSize1795388400000 } from './1795388400000-implicit-max-batch-size.js';

/** A migration class TypeORM can instantiate. */
export type MigrationClass = new () => MigrationInterface;

/** Every migration, in the order they apply. */
export const REGISTRY_MIGRATIONS: readonly MigrationClass[] = [
  InitialSchema1763683200000,
  ModelVersionPolicies1795348800000,
  ModelSourcesAndExternalData1795352400000,
  RolloutProgress1795356000000,
  TextTasks1795359600000,
  TextGenerationTask1795363200000,
  ImageClassificationTask1795366800000,
  ImageToTextTask1795370400000,
  OptionsThatNeverApplied1795374000000,
  DecodersWithoutPositionIds1795377600000,
  InertQueueDelays1795381200000,
  EndpointGenerationDefaults1795384800000,
  ImplicitMaxBatchSize1795388400000,
];
