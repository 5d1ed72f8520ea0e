import {
  type BatchingConfig,
  type ExternalDataRef,
  type GenerationFacts,
  type ImageFacts,
  type ModelStatus,
  type ModelTask,
  type PreparationTimings,
  type RuntimeConfig,
  type TensorMetadata,
} from '@modelgate/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Inputs and outputs of a prepared model, as onnxruntime reported them. */
export interface ModelIo {
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
  /** text-generation and image-to-text: the positions and vocabulary preparation read (ModelSpec.generation). */
  generation?: GenerationFacts;
  /** image-classification and image-to-text: the size the image processor gives every image (ModelSpec.image). */
  image?: ImageFacts;
  /**
   * Text tasks: the longest input, in tokens, the model's tokenizer takes (model_max_length capped by
   * the positions in config.json), which the gateway cuts an endpoint's maxTokens to; absent for a
   * model prepared before it was recorded.
   */
  maxTokens?: number;
}

/** A row of `models`: one version of one model. */
@Entity({ name: 'models' })
export class ModelEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('varchar', { length: 63 })
  name!: string;

  @Column('integer')
  version!: number;

  @Column('varchar', { length: 32 })
  task!: ModelTask;

  /**
   * The .onnx file (an image-to-text model's decoder); null only while a model registered from
   * `sourceUri` waits for its import.
   */
  @Column('text', { name: 'artifact_uri', nullable: true })
  artifactUri!: string | null;

  @Column('char', { name: 'artifact_sha256', length: 64, nullable: true })
  artifactSha256!: string | null;

  /** Where preparation imports the files from (`hf://org/name@revision`); null when registered by URI or upload. */
  @Column('text', { name: 'source_uri', nullable: true })
  sourceUri!: string | null;

  /** image-to-text: the encoder graph (encoder_model.onnx); null for other tasks and until an import is done. */
  @Column('text', { name: 'encoder_uri', nullable: true })
  encoderUri!: string | null;

  @Column('char', { name: 'encoder_sha256', length: 64, nullable: true })
  encoderSha256!: string | null;

  /** ONNX external data files, placed beside the .onnx file under their names. */
  @Column('jsonb', { name: 'external_data', default: () => "'[]'" })
  externalData!: ExternalDataRef[];

  @Column('text', { name: 'tokenizer_uri', nullable: true })
  tokenizerUri!: string | null;

  @Column('char', { name: 'tokenizer_sha256', length: 64, nullable: true })
  tokenizerSha256!: string | null;

  @Column('jsonb', { nullable: true })
  io!: ModelIo | null;

  @Column('jsonb', { nullable: true })
  labels!: string[] | null;

  /** Defaults applied at registration. */
  @Column('jsonb')
  batching!: BatchingConfig;

  /** Defaults applied at registration. */
  @Column('jsonb')
  runtime!: RuntimeConfig;

  @Column('varchar', { name: 'worker_group', length: 63 })
  workerGroup!: string;

  @Column('varchar', { length: 16 })
  status!: ModelStatus;

  @Column('text', { name: 'status_reason', nullable: true })
  statusReason!: string | null;

  @Column('timestamptz', { name: 'prepared_at', nullable: true })
  preparedAt!: Date | null;

  @Column('jsonb', { nullable: true })
  timings!: PreparationTimings | null;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}
